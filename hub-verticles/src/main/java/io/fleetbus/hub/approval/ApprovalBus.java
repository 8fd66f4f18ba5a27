package io.fleetbus.hub.approval;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * {@link ApprovalService} on the hub's own bus: a call enters at {@code fleet.hub.approve}; listing and deciding have
 * one address each under {@code fleet.hub.approvals}. A {@link Decision} travels by reference ({@code LocalCodec},
 * registered once per Vert.x by the hub's assembly).
 */
public final class ApprovalBus {
  public static final String SUBMIT = Addresses.HUB_APPROVE;
  public static final String LIST = Addresses.HUB_APPROVALS + ".list";
  public static final String DECIDE = Addresses.HUB_APPROVALS + ".decide";
  private static final long ASK_TIMEOUT_MS = 10_000;

  private ApprovalBus() {
  }

  /** The client end: every operation is a local request to the approval verticle. */
  public static ApprovalService client(Vertx vertx) {
    return new ApprovalService() {
      @Override
      public Future<ToolResult> submit(ToolCall call) {
        // a tier-3 call is planned (node dry checks) and stored before it answers; others answer with the node
        return LocalServices.ask(vertx, SUBMIT, call, call.timeoutMs() + 10_000);
      }

      @Override
      public Future<JsonArray> list(String status) {
        return LocalServices.ask(vertx, LIST, new JsonObject().put("status", status), ASK_TIMEOUT_MS);
      }

      @Override
      public Future<JsonObject> decide(Decision decision) {
        return LocalServices.ask(vertx, DECIDE, decision, ASK_TIMEOUT_MS);
      }
    };
  }

  /** Serves {@code approvals} (called by the verticle that owns the approvals, in its start). */
  public static Future<Void> serve(Vertx vertx, ApprovalService approvals) {
    return Future.all(
      LocalServices.<ToolCall, ToolResult>serve(vertx, SUBMIT, approvals::submit).completion(),
      LocalServices.<JsonObject, JsonArray>serve(vertx, LIST, q -> approvals.list(q.getString("status"))).completion(),
      LocalServices.<Decision, JsonObject>serve(vertx, DECIDE, approvals::decide).completion()).mapEmpty();
  }
}
