package io.fleetbus.hub.calls;

import io.fleetbus.hub.consent.Approval;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.json.JsonObject;

/**
 * What the hub remembers of one call: who asked for what, where it is, and how it ended.
 * {@code hub} is the cluster member that routes it (its answer comes back there); {@code resolution}
 * says how an outcome the caller did not hear (a timeout, a node or hub gone) was learned afterwards.
 */
public record CallRecord(String callId, String principal, String nodeId, String tool, int tier, String status,
                         String approvalId, ToolResult result, long createdAt, long finishedAt, String hub,
                         String resolution) {

  public static final String PENDING = "pending_approval";
  public static final String RUNNING = "running";

  /** {@code call}, parked for approval {@code approvalId} since {@code at}: no hub routes it yet. */
  public static CallRecord pending(ToolCall call, int tier, String approvalId, long at) {
    return new CallRecord(call.callId(), call.principal(), call.nodeId(), call.tool(), tier, PENDING, approvalId, null,
      at, 0, null, null);
  }

  /**
   * {@code call}, running since {@code at} (approved as {@code approvalId}, or null for tiers 1-2), routed by the hub
   * {@code by} (null: not yet; {@link #running(String)} says who).
   */
  public static CallRecord started(ToolCall call, int tier, String approvalId, long at, String by) {
    return new CallRecord(call.callId(), call.principal(), call.nodeId(), call.tool(), tier, RUNNING, approvalId, null,
      at, 0, by, null);
  }

  /**
   * The record of an approval's call as a hub finds it on its disk after a restart: pending, or ended as decided.
   * An approved call's result was not kept: the hub asks its node when someone queries the call.
   */
  public static CallRecord restored(Approval a, int tier) {
    ToolCall c = a.call();
    CallRecord pending = pending(c, tier, a.approvalId(), a.requestedAt());
    return switch (a.status()) {
      case Approval.PENDING -> pending;
      case Approval.DENIED -> pending.finished(ToolResult.error(c.callId(), c.nodeId(), FailureCode.FORBIDDEN,
        "denied by " + a.decidedBy() + (a.reason() == null ? "" : ": " + a.reason()), 0));
      case Approval.EXPIRED -> pending.finished(ToolResult.error(c.callId(), c.nodeId(), FailureCode.APPROVAL_EXPIRED,
        "approval " + a.approvalId() + " expired", 0));
      case Approval.CANCELLED -> pending.finished(withdrawn(c, a.decidedBy()));
      default -> pending.finished(ToolResult.error(c.callId(), c.nodeId(), FailureCode.TOOL_FAILED, "the hub restarted"
        + " after this call was approved; the outcome is unknown to this hub (its node is asked when you query"
        + " GET /api/v1/calls/" + c.callId() + "; the node runs an approved call at most once)", 0));
    };
  }

  /** How a call withdrawn before anyone approved it ends: cancelled, never ran. */
  public static ToolResult withdrawn(ToolCall c, String by) {
    return ToolResult.cancelled(c.callId(), c.nodeId(), by, "withdrawn by " + by + " before approval; it never ran", 0);
  }

  public CallRecord finished(ToolResult r) {
    return with(r.status(), r, System.currentTimeMillis(), hub, resolution);
  }

  /** Routed now, by the hub {@code by}. */
  public CallRecord running(String by) {
    return with(RUNNING, null, 0, by, null);
  }

  /** The outcome as learned after the caller's answer (from the node that ran it). */
  public CallRecord resolved(ToolResult r, String how) {
    return with(r.status(), r, finishedAt == 0 ? System.currentTimeMillis() : finishedAt, hub, how);
  }

  /** The same call with no outcome yet (it is about to be delivered again). */
  public CallRecord withoutResult() {
    return with(status, null, 0, hub, null);
  }

  public CallRecord withHub(String by) {
    return with(status, result, finishedAt, by, resolution);
  }

  /** This call (who, what, where, when asked) in another state. */
  private CallRecord with(String newStatus, ToolResult newResult, long newFinishedAt, String newHub, String newResolution) {
    return new CallRecord(callId, principal, nodeId, tool, tier, newStatus, approvalId, newResult, createdAt,
      newFinishedAt, newHub, newResolution);
  }

  public boolean isFinished() {
    return result != null;
  }

  /** The caller never heard how it ended: the answer timed out, or the node or its hub went away. */
  public boolean outcomeUnknown() {
    if (result == null || result.errorCode() == null || resolution != null) {
      return false;
    }
    int code = result.errorCode();
    return (code == 504 || code == 503 || code == 500) && String.valueOf(result.errorMessage()).contains("outcome is unknown");
  }

  public JsonObject toJson() {
    JsonObject j = new JsonObject().put("callId", callId).put("principal", principal).put("nodeId", nodeId)
      .put("tool", tool).put("tier", tier).put("status", status).put("approvalId", approvalId)
      .put("createdAt", createdAt).put("finishedAt", finishedAt == 0 ? null : finishedAt);
    if (result != null) {
      JsonObject r = result.toJson();
      j.put("data", r.getValue("data")).put("error", r.getValue("error")).put("durationMs", result.durationMs());
    }
    if (resolution != null) {
      j.put("resolution", resolution);
    }
    return j;
  }

  /** Everything, for the hubs' shared map. */
  public JsonObject toStoredJson() {
    return new JsonObject().put("callId", callId).put("principal", principal).put("nodeId", nodeId).put("tool", tool)
      .put("tier", tier).put("status", status).put("approvalId", approvalId)
      .put("result", result == null ? null : result.toJson()).put("createdAt", createdAt).put("finishedAt", finishedAt)
      .put("hub", hub).put("resolution", resolution);
  }

  public static CallRecord fromStoredJson(JsonObject j) {
    JsonObject r = j.getJsonObject("result");
    return new CallRecord(j.getString("callId"), j.getString("principal"), j.getString("nodeId"), j.getString("tool"),
      j.getInteger("tier", 0), j.getString("status"), j.getString("approvalId"), r == null ? null : ToolResult.fromJson(r),
      j.getLong("createdAt", 0L), j.getLong("finishedAt", 0L), j.getString("hub"), j.getString("resolution"));
  }
}
