package io.fleetbus.hub.config;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.vertx.config.ConfigRetriever;
import io.vertx.config.ConfigRetrieverOptions;
import io.vertx.config.ConfigStoreOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the hub's conf file and applies what may change while running: tier overrides (the shared
 * catalogue) and the expected nodes (the registry shows those never seen). A file that does not parse
 * or does not validate is rejected with the reason in the log, and the running config stays.
 * Everything else in the file (ports, data folder, cluster) needs a restart.
 */
public final class HubConfigVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(HubConfigVerticle.class);
  /** Registry: the expected nodes of the config now in force (hub-local). */
  private final Path file;
  private final ToolCatalog catalog;
  private final long scanMs;
  private ConfigRetriever retriever;

  public HubConfigVerticle(Path file, ToolCatalog catalog, long scanMs) {
    this.file = file;
    this.catalog = catalog;
    this.scanMs = scanMs;
  }

  @Override
  public Future<?> start() {
    retriever = ConfigRetriever.create(vertx, new ConfigRetrieverOptions().setScanPeriod(scanMs).setIncludeDefaultStores(false)
      .addStore(new ConfigStoreOptions().setType("file").setFormat("json")
        .setConfig(new JsonObject().put("path", file.toAbsolutePath().toString()))));
    retriever.listen(change -> apply(change.getNewConfiguration(), "reloaded"));
    // a file that does not parse surfaces here; the retriever keeps the last good configuration
    retriever.configStream().exceptionHandler(err -> LOG.error("hub config rejected, keeping the running one [file: {}, reason: {}]", file,
      err.getMessage()));
    return retriever.getConfig().onSuccess(conf -> apply(conf, "loaded")).recover(err -> {
      LOG.error("hub config unreadable at start, keeping the start-up settings [file: {}, reason: {}]", file, err.getMessage());
      return Future.succeededFuture();
    });
  }

  @Override
  public Future<?> stop() {
    return retriever == null ? Future.succeededFuture() : retriever.close();
  }

  private void apply(JsonObject conf, String how) {
    try {
      JsonArray expected = expectedNodes(conf);
      catalog.applyTierOverrides(conf.getJsonObject("tierOverrides", new JsonObject()));
      vertx.eventBus().send(Addresses.HUB_EXPECTED_NODES, expected, new DeliveryOptions().setLocalOnly(true));
      vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "hub.config_" + how)
        .put("tierOverrides", conf.getJsonObject("tierOverrides", new JsonObject())).put("expectedNodes", expected.size()));
      LOG.info("hub config {} [file: {}, tierOverrides: {}, expectedNodes: {}]", how, file,
        conf.getJsonObject("tierOverrides", new JsonObject()).encode(), expected.size());
    } catch (RuntimeException e) {
      LOG.error("hub config rejected, keeping the running one [file: {}, reason: {}]", file, e.getMessage());
    }
  }

  /** {@code expectedNodes: [{nodeId, labels?}]}, like the seed's machines registry. */
  static JsonArray expectedNodes(JsonObject conf) {
    Object value = conf.getValue("expectedNodes", new JsonArray());
    if (!(value instanceof JsonArray list)) {
      throw new IllegalArgumentException("expectedNodes must be an array of {nodeId, labels}");
    }
    for (Object o : list) {
      if (!(o instanceof JsonObject n) || !(n.getValue("nodeId") instanceof String)
        || (n.containsKey("labels") && !(n.getValue("labels") instanceof JsonObject))) {
        throw new IllegalArgumentException("expectedNodes entries must be {nodeId: string, labels: object}: " + o);
      }
    }
    if (conf.containsKey("tierOverrides") && !(conf.getValue("tierOverrides") instanceof JsonObject)) {
      throw new IllegalArgumentException("tierOverrides must be an object of tool → tier");
    }
    return list;
  }
}
