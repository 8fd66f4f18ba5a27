package io.fleetbus.hub.registry;

import io.fleetbus.hub.monitor.MonitorBus;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetReplies;
import io.fleetbus.shared.msg.ControlOrder;
import io.fleetbus.shared.msg.NodeControl;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes a config_update to a running node (heartbeat interval, allowlist, log paths, labels), and once
 * the node confirms, makes the hub agree: registry labels and interval, the monitor's expected rhythm,
 * a lifecycle entry and a {@code node.config_updated} event.
 */
public final class NodeConfigVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(NodeConfigVerticle.class);

  @Override
  public Future<?> start() {
    return vertx.eventBus().<JsonObject>localConsumer(Addresses.HUB_NODE_CONFIG, this::onUpdate).completion();
  }

  private void onUpdate(Message<JsonObject> msg) {
    String nodeId = msg.body().getString("nodeId");
    JsonObject update = msg.body().getJsonObject("update", new JsonObject());
    String by = msg.body().getString("by");
    if (update.isEmpty()) {
      msg.fail(FailureCode.BAD_REQUEST.code, "the update is empty: send heartbeatIntervalMs, allowlist, logPaths or labels");
      return;
    }
    RegistryService registry = RegistryBus.client(vertx);
    registry.lookup(nodeId)
      .compose(node -> {
        if (!node.online()) {
          throw FailureCode.NO_ELIGIBLE_NODE.exception("node '" + nodeId + "' is offline: a config_update needs it online");
        }
        // signed by the control verticle: nodes take no unsigned instructions
        return NodeControl.client(vertx).order(ControlOrder.configUpdate(nodeId, update));
      })
      .compose(reply -> {
        JsonObject effective = reply.getJsonObject("effective", new JsonObject());
        JsonObject labels = update.containsKey("labels") ? effective.getJsonObject("labels") : null;
        Long interval = update.containsKey("heartbeatIntervalMs") ? effective.getLong("heartbeatIntervalMs") : null;
        if (interval != null) {
          MonitorBus.client(vertx).heartbeatInterval(nodeId, interval);
        }
        return registry.applySettings(new NodeSettings(nodeId, by, update, labels, interval)).map(v -> reply);
      })
      .onSuccess(confirmed -> {
        LOG.info("config updated [node: {}, keys: {}, by: {}]", nodeId, update.fieldNames(), by);
        vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "node.config_updated").put("nodeId", nodeId)
          .put("keys", new io.vertx.core.json.JsonArray(update.fieldNames().stream().sorted().toList())).put("by", by));
        msg.reply(confirmed);
      })
      .onFailure(err -> FleetReplies.fail(msg, err));
  }
}
