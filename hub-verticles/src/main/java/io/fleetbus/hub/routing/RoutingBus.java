package io.fleetbus.hub.routing;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/**
 * {@link RoutingService} on the hub's own bus: one local address per operation ({@code fleet.hub.route} for a call,
 * {@code .plan} for the check before parking, {@code fleet.hub.call-status}), so routing stays a verticle in the
 * request path and nothing outside this hub can answer for it. A {@link RoutePlan} travels by reference
 * ({@code LocalCodec}, registered once per Vert.x by the hub's assembly).
 */
public final class RoutingBus {
  /** A call to carry out. */
  public static final String ROUTE = Addresses.HUB_ROUTE;
  /** A call to plan before it parks for approval. */
  public static final String PLAN = Addresses.HUB_ROUTE + ".plan";
  /** {@code {nodeId, callId, waitMs}}: how the node says the call ended. */
  public static final String CALL_STATUS = Addresses.HUB_CALL_STATUS;
  /** A node answers a dry check within {@link DryCheck#TIMEOUT_MS}; the plan has room for the registry too. */
  private static final long PLAN_TIMEOUT_MS = 30_000;

  private RoutingBus() {
  }

  /** The client end: every operation is a local request to the routing verticle. */
  public static RoutingService client(Vertx vertx) {
    return new RoutingService() {
      @Override
      public Future<ToolResult> route(ToolCall call) {
        // the node's own reply timeout is the call's; the router answers a little after it at the latest
        return LocalServices.ask(vertx, ROUTE, call, call.timeoutMs() + 5000);
      }

      @Override
      public Future<RoutePlan> plan(ToolCall call) {
        return LocalServices.ask(vertx, PLAN, call, PLAN_TIMEOUT_MS);
      }

      @Override
      public Future<JsonObject> callStatus(String nodeId, String callId, long waitMs) {
        return LocalServices.ask(vertx, CALL_STATUS, new JsonObject().put("nodeId", nodeId).put("callId", callId)
          .put("waitMs", waitMs), waitMs + 8000);
      }
    };
  }

  /** Serves {@code routing} (called by the verticle that owns routing's state, in its start). */
  public static Future<Void> serve(Vertx vertx, RoutingService routing) {
    return Future.all(
      LocalServices.<ToolCall, ToolResult>serve(vertx, ROUTE, routing::route).completion(),
      LocalServices.<ToolCall, RoutePlan>serve(vertx, PLAN, routing::plan).completion(),
      LocalServices.<JsonObject, JsonObject>serve(vertx, CALL_STATUS, q -> routing.callStatus(q.getString("nodeId"),
        q.getString("callId"), q.getLong("waitMs", 0L))).completion()).mapEmpty();
  }
}
