package io.fleetbus.shared.msg;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;

/**
 * The outcome of a call. {@code status} is {@code ok}, {@code error}, {@code cancelled} (someone stopped it or
 * withdrew it: not a failure, {@code data} says who and how) or {@code pending_approval} (then {@code data.approvalId}
 * names the approval). A result from a node carries {@code proof}, an
 * HMAC keyed by the node's credential hash; the hub checks and strips it.
 */
public record ToolResult(String callId, String nodeId, String status, JsonObject data,
                         Integer errorCode, String errorMessage, long durationMs, String proof) {

  public ToolResult(String callId, String nodeId, String status, JsonObject data, Integer errorCode,
                    String errorMessage, long durationMs) {
    this(callId, nodeId, status, data, errorCode, errorMessage, durationMs, null);
  }

  public ToolResult withData(JsonObject newData) {
    return new ToolResult(callId, nodeId, status, newData, errorCode, errorMessage, durationMs, proof);
  }

  public ToolResult withProof(String newProof) {
    return new ToolResult(callId, nodeId, status, data, errorCode, errorMessage, durationMs, newProof);
  }

  public static final String OK = "ok";
  public static final String ERROR = "error";
  public static final String PENDING = "pending_approval";
  public static final String CANCELLED = "cancelled";

  public static ToolResult ok(String callId, String nodeId, JsonObject data, long durationMs) {
    return new ToolResult(callId, nodeId, OK, data, null, null, durationMs);
  }

  public static ToolResult error(String callId, String nodeId, FailureCode code, String message, long durationMs) {
    return new ToolResult(callId, nodeId, ERROR, null, code.code, message, durationMs);
  }

  public static ToolResult pending(String callId, String nodeId, String approvalId) {
    return new ToolResult(callId, nodeId, PENDING, new JsonObject().put("approvalId", approvalId), null, null, 0);
  }

  /**
   * A call someone stopped on its node or withdrew before it ran: {@code data} = {@code {cancelledBy, message}}.
   * No error code: a cancel is an outcome the caller (or an approver) chose, not a failure.
   */
  public static ToolResult cancelled(String callId, String nodeId, String by, String message, long durationMs) {
    return new ToolResult(callId, nodeId, CANCELLED, new JsonObject().put("cancelledBy", by).put("message", message),
      null, null, durationMs);
  }

  public boolean isOk() {
    return OK.equals(status);
  }

  public boolean isCancelled() {
    return CANCELLED.equals(status);
  }

  public JsonObject toJson() {
    JsonObject j = new JsonObject().put("callId", callId).put("nodeId", nodeId).put("status", status);
    if (data != null) {
      j.put("data", data);
    }
    if (errorCode != null) {
      j.put("error", new JsonObject().put("code", errorCode).put("message", errorMessage));
    }
    j.put("durationMs", durationMs);
    return proof == null ? j : j.put("proof", proof);
  }

  public static ToolResult fromJson(JsonObject j) {
    JsonObject err = j.getJsonObject("error");
    return new ToolResult(j.getString("callId"), j.getString("nodeId"), j.getString("status"),
      j.getJsonObject("data"), err == null ? null : err.getInteger("code"),
      err == null ? null : err.getString("message"), j.getLong("durationMs", 0L), j.getString("proof"));
  }
}
