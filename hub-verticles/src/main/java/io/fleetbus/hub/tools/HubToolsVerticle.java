package io.fleetbus.hub.tools;

import io.fleetbus.hub.authz.Caller;
import io.fleetbus.hub.authz.Access;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetReplies;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Answers the hub-side tools (runsOn: hub) that the approval verticle hands over on the local-only
 * {@code fleet.hub.tools} address: the same role check, schema validation and tier policy as node
 * tools have already been applied, only no node is involved.
 */
public final class HubToolsVerticle extends VerticleBase {
  private final ToolCatalog catalog;
  private final RecentEventsLog recent = new RecentEventsLog();
  private final SiteLog siteLog;
  private CatalogQueries queries;

  public HubToolsVerticle(ToolCatalog catalog) {
    this(catalog, null);
  }

  /** @param siteLog where get_site_logs reads; null keeps the hub's recent events in memory */
  public HubToolsVerticle(ToolCatalog catalog, SiteLog siteLog) {
    this.catalog = catalog;
    this.siteLog = siteLog == null ? recent : siteLog;
  }

  @Override
  public Future<?> start() {
    queries = new CatalogQueries(catalog);
    return Future.all(recent.start(vertx),
      vertx.eventBus().<ToolCall>localConsumer(Addresses.HUB_TOOLS, this::onCall).completion());
  }

  @Override
  public Future<?> stop() {
    return recent.stop();
  }

  private void onCall(Message<ToolCall> msg) {
    ToolCall call = msg.body();
    long started = System.nanoTime();
    Future<JsonObject> answer;
    try {
      ToolSpec spec = catalog.require(call.tool());
      if (!spec.runsOnHub()) {
        throw FailureCode.BAD_REQUEST.exception("tool " + spec.name() + " runs on a node: POST /api/v1/nodes/{nodeId}/tools/"
          + spec.name());
      }
      answer = run(spec.name(), call);
    } catch (RuntimeException e) {
      answer = Future.failedFuture(e);
    }
    answer.onComplete(ar -> {
      if (ar.succeeded()) {
        msg.reply(ToolResult.ok(call.callId(), null, ar.result(), (System.nanoTime() - started) / 1_000_000));
      } else {
        FleetReplies.fail(msg, ar.cause());
      }
    });
  }

  private Future<JsonObject> run(String tool, ToolCall call) {
    JsonObject args = call.args();
    return switch (tool) {
      case "list_tools" -> Future.succeededFuture(queries.list(call.roles()));
      case "search_tools" -> Future.succeededFuture(queries.search(call.roles(), args.getString("query", "")));
      case "get_tool_schema" -> Future.succeededFuture(queries.schema(call.roles(), args.getString("tool")));
      case "validate_args" -> Future.succeededFuture(queries.validate(args.getString("tool"), args.getJsonObject("args")));
      case "list_nodes" -> listNodes(args);
      case "get_site_logs" -> siteLog.query(args.getString("level"), args.getDouble("hours", 24.0),
        args.getInteger("limit", 50), args.getString("action")).map(all -> visibleTo(call, all))
        .map(events -> new JsonObject().put("events", events)
        .put("count", events.size()).put("source", siteLog == recent ? "recent fleet events on this hub (in memory)" : "audit"));
      default -> Future.failedFuture(FailureCode.NOT_FOUND.exception("tool '" + tool + "' has no hub handler"));
    };
  }

  /** Only the events the caller may hear (approvals and calls of others are not theirs to read). */
  private static JsonArray visibleTo(ToolCall call, JsonArray events) {
    Caller caller = new Caller(call.principal(), call.roles());
    JsonArray out = new JsonArray();
    events.forEach(e -> {
      if (!(e instanceof JsonObject o) || Access.hears(caller, o)) {
        out.add(e);
      }
    });
    return out;
  }

  private Future<JsonObject> listNodes(JsonObject args) {
    return RegistryBus.client(vertx).list()
      .map(all -> {
        JsonArray nodes = new JsonArray();
        for (Object o : all.getJsonArray("nodes")) {
          JsonObject n = (JsonObject) o;
          if (matches(args.getValue("online"), n.getValue("online"))
            && matches(args.getValue("capability_tier"), n.getValue("capabilityTier"))
            && matches(args.getValue("platform"), n.getValue("platform"))) {
            nodes.add(n);
          }
        }
        return new JsonObject().put("nodes", nodes).put("count", nodes.size());
      });
  }

  private static boolean matches(Object wanted, Object actual) {
    return wanted == null || wanted.equals(actual);
  }
}
