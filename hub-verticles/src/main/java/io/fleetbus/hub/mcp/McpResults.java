package io.fleetbus.hub.mcp;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** CallToolResult shapes: the tool's data as text and as structuredContent; failures as isError results. */
final class McpResults {
  private McpResults() {
  }

  static JsonObject ok(JsonObject data, String callId, String nodeId) {
    JsonObject structured = data == null ? new JsonObject() : data;
    return new JsonObject().put("content", text(structured.encode())).put("structuredContent", structured)
      .put("isError", false).put("_meta", meta(callId, nodeId));
  }

  static JsonObject error(int code, String message, String callId) {
    String label = FailureCode.of(code).label;
    return new JsonObject().put("content", text("error " + code + " (" + label + "): " + message))
      .put("structuredContent", new JsonObject().put("error", new JsonObject().put("code", code).put("label", label)
        .put("message", message)).put("callId", callId))
      .put("isError", true);
  }

  /**
   * A call someone stopped or withdrew: not a failure of the tool, so no error code; the text says who cancelled it,
   * so a model does not read a missing answer as the tool's.
   */
  static JsonObject cancelled(JsonObject data, String callId, String nodeId) {
    JsonObject d = data == null ? new JsonObject() : data;
    return new JsonObject().put("content", text("cancelled: " + d.getString("message", "the call was cancelled")))
      .put("structuredContent", new JsonObject().put("status", "cancelled").put("callId", callId)
        .put("cancelledBy", d.getString("cancelledBy")).put("message", d.getString("message")))
      .put("isError", false).put("_meta", meta(callId, nodeId));
  }

  /** A finished call's record (GET /api/v1/calls/{id}) as the CallToolResult its tools/call would have answered. */
  static JsonObject fromRecord(JsonObject rec) {
    JsonObject error = rec.getJsonObject("error");
    if (error != null) {
      return error(error.getInteger("code", 500), error.getString("message"), rec.getString("callId"));
    }
    if ("cancelled".equals(rec.getString("status"))) {
      return cancelled(rec.getJsonObject("data"), rec.getString("callId"), rec.getString("nodeId"));
    }
    return ok(rec.getJsonObject("data"), rec.getString("callId"), rec.getString("nodeId"));
  }

  static JsonObject pending(String callId, String approvalId, String summary, String why) {
    return new JsonObject()
      .put("content", text("Approval " + approvalId + " is pending" + (why == null ? "" : " (" + why + ")") + ": "
        + summary + ". A person with the approver role decides it (POST /api/v1/approvals/" + approvalId
        + "/approve or /deny); GET /api/v1/calls/" + callId + " then has the result."))
      .put("structuredContent", new JsonObject().put("status", "pending_approval").put("callId", callId)
        .put("approvalId", approvalId).put("summary", summary))
      .put("isError", false);
  }

  private static JsonArray text(String text) {
    return new JsonArray().add(new JsonObject().put("type", "text").put("text", text));
  }

  private static JsonObject meta(String callId, String nodeId) {
    return new JsonObject().put("io.fleetbus/callId", callId).put("io.fleetbus/nodeId", nodeId);
  }
}
