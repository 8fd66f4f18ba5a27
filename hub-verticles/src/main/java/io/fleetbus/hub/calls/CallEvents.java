package io.fleetbus.hub.calls;

import io.vertx.core.json.JsonObject;

/** The {@code call.finished} event on {@code fleet.events}: what metrics and the call log need, never the arguments. */
public final class CallEvents {
  public static final String FINISHED = "call.finished";

  private CallEvents() {
  }

  public static JsonObject finished(CallRecord rec, long latencyMs) {
    Integer code = rec.result().errorCode();
    String nodeId = rec.result().nodeId() != null ? rec.result().nodeId() : rec.nodeId();
    return new JsonObject().put("type", FINISHED).put("callId", rec.callId()).put("nodeId", nodeId)
      .put("tool", rec.tool()).put("tier", rec.tier()).put("principal", rec.principal()).put("status", rec.status())
      .put("outcome", code != null ? "error" : rec.status()).put("code", code == null ? 200 : code).put("durationMs", rec.result().durationMs())
      .put("latencyMs", latencyMs < 0 ? null : latencyMs);
  }
}
