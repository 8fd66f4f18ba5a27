package io.fleetbus.hub.consent;

import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.json.JsonObject;

/**
 * A tier-3 call waiting for a person, and what that person decided. {@code confirm} says who may confirm it
 * ({@link ConfirmPolicy}: {@code user} — the requester too, through MCP elicitation — or {@code second-person}).
 */
public record Approval(String approvalId, ToolCall call, String summary, long requestedAt, long expiresAt,
                       String status, String decidedBy, String reason, long decidedAt, String confirm) {

  public Approval {
    confirm = confirm == null ? ConfirmPolicy.SECOND_PERSON : confirm;
  }

  public static final String PENDING = "pending";
  public static final String APPROVED = "approved";
  public static final String DENIED = "denied";
  public static final String EXPIRED = "expired";
  public static final String CANCELLED = "cancelled";

  public Approval decide(String newStatus, String by, String why) {
    return new Approval(approvalId, call, summary, requestedAt, expiresAt, newStatus, by, why, System.currentTimeMillis(),
      confirm);
  }

  public JsonObject toJson() {
    return new JsonObject()
      .put("approvalId", approvalId)
      .put("callId", call.callId())
      .put("requester", call.principal())
      .put("nodeId", call.nodeId())
      .put("selector", call.selector())
      .put("tool", call.tool())
      .put("args", call.args())
      .put("argsSha256", io.fleetbus.shared.trust.CanonicalJson.sha256(call.args()))
      .put("summary", summary)
      .put("requestedAt", requestedAt)
      .put("expiresAt", expiresAt)
      .put("status", status)
      .put("decidedBy", decidedBy)
      .put("reason", reason)
      .put("decidedAt", decidedAt == 0 ? null : decidedAt)
      .put("confirm", confirm);
  }

  /** Everything, for the hubs' shared map (sealed there). */
  public JsonObject toStoredJson() {
    return new JsonObject().put("approvalId", approvalId).put("call", call.toJson()).put("summary", summary)
      .put("requestedAt", requestedAt).put("expiresAt", expiresAt).put("status", status).put("decidedBy", decidedBy)
      .put("reason", reason).put("decidedAt", decidedAt).put("confirm", confirm);
  }

  public static Approval fromStoredJson(JsonObject j) {
    return new Approval(j.getString("approvalId"), ToolCall.fromJson(j.getJsonObject("call")), j.getString("summary"),
      j.getLong("requestedAt", 0L), j.getLong("expiresAt", 0L), j.getString("status"), j.getString("decidedBy"),
      j.getString("reason"), j.getLong("decidedAt", 0L), j.getString("confirm"));
  }

  public boolean isPending() {
    return PENDING.equals(status);
  }
}
