package io.fleetbus.hub.approval;

import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.json.JsonObject;

/** What the hub remembers of one call: who asked for what, where it is, and how it ended. */
public record CallRecord(String callId, String principal, String nodeId, String tool, int tier, String status,
                         String approvalId, ToolResult result, long createdAt, long finishedAt) {

  public static final String PENDING = "pending_approval";
  public static final String RUNNING = "running";

  public CallRecord finished(ToolResult r) {
    return new CallRecord(callId, principal, nodeId, tool, tier, r.status(), approvalId, r, createdAt,
      System.currentTimeMillis());
  }

  public CallRecord running() {
    return new CallRecord(callId, principal, nodeId, tool, tier, RUNNING, approvalId, null, createdAt, 0);
  }

  public boolean isFinished() {
    return result != null;
  }

  public JsonObject toJson() {
    JsonObject j = new JsonObject().put("callId", callId).put("principal", principal).put("nodeId", nodeId)
      .put("tool", tool).put("tier", tier).put("status", status).put("approvalId", approvalId)
      .put("createdAt", createdAt).put("finishedAt", finishedAt == 0 ? null : finishedAt);
    if (result != null) {
      JsonObject r = result.toJson();
      j.put("data", r.getValue("data")).put("error", r.getValue("error")).put("durationMs", result.durationMs());
    }
    return j;
  }
}
