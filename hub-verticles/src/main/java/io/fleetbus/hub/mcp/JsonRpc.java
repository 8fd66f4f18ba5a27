package io.fleetbus.hub.mcp;

import io.vertx.core.json.JsonObject;

/** JSON-RPC 2.0 message shapes and the error codes MCP uses. */
final class JsonRpc {
  static final int PARSE_ERROR = -32700;
  static final int INVALID_REQUEST = -32600;
  static final int METHOD_NOT_FOUND = -32601;
  static final int INVALID_PARAMS = -32602;
  static final int INTERNAL_ERROR = -32603;

  private JsonRpc() {
  }

  static JsonObject result(Object id, JsonObject result) {
    return new JsonObject().put("jsonrpc", "2.0").put("id", id).put("result", result);
  }

  static JsonObject error(Object id, int code, String message) {
    return new JsonObject().put("jsonrpc", "2.0").put("id", id)
      .put("error", new JsonObject().put("code", code).put("message", message));
  }

  static JsonObject notification(String method, JsonObject params) {
    return new JsonObject().put("jsonrpc", "2.0").put("method", method).put("params", params);
  }

  static JsonObject request(Object id, String method, JsonObject params) {
    return notification(method, params).put("id", id);
  }

  /** The method name, or null when it is missing or not a string. */
  static String method(JsonObject m) {
    return m.getValue("method") instanceof String s ? s : null;
  }

  /** The params object (empty when absent or null); anything else is an invalid-params error. */
  static JsonObject params(JsonObject m) {
    Object p = m.getValue("params");
    if (p == null) {
      return new JsonObject();
    }
    if (!(p instanceof JsonObject o)) {
      throw new McpError(INVALID_PARAMS, "params must be an object");
    }
    return o;
  }

  static boolean isRequest(JsonObject m) {
    return m.containsKey("method") && m.getValue("id") != null;
  }

  static boolean isNotification(JsonObject m) {
    return m.containsKey("method") && m.getValue("id") == null;
  }

  static boolean isResponse(JsonObject m) {
    return !m.containsKey("method") && m.getValue("id") != null && (m.containsKey("result") || m.containsKey("error"));
  }
}
