package io.fleetbus.shared.msg;

import io.fleetbus.shared.bus.TimeBound;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * One tool call on its way from a frontend to a node. Immutable by convention: nobody mutates
 * {@code args} or {@code selector} after the call is created, so local hops pass it without a copy.
 *
 * @param nodeId   the target node, or null when {@code selector} picks one
 * @param selector labels/platform selector, or null when {@code nodeId} is given
 */
public record ToolCall(String callId, String idempotencyKey, String principal, List<String> roles,
                       String tool, JsonObject args, String nodeId, JsonObject selector,
                       long timeoutMs, boolean stream, String signature) implements TimeBound {

  public ToolCall {
    roles = roles == null ? List.of() : List.copyOf(roles);
    args = args == null ? new JsonObject() : args;
  }

  public ToolCall withNode(String node) {
    return new ToolCall(callId, idempotencyKey, principal, roles, tool, args, node, selector, timeoutMs, stream, signature);
  }

  public ToolCall withSelector(JsonObject sel) {
    return new ToolCall(callId, idempotencyKey, principal, roles, tool, args, nodeId, sel, timeoutMs, stream, signature);
  }

  public ToolCall withArgs(JsonObject newArgs) {
    return new ToolCall(callId, idempotencyKey, principal, roles, tool, newArgs, nodeId, selector, timeoutMs, stream, signature);
  }

  public ToolCall withSignature(String sig) {
    return new ToolCall(callId, idempotencyKey, principal, roles, tool, args, nodeId, selector, timeoutMs, stream, sig);
  }

  public JsonObject toJson() {
    return new JsonObject()
      .put("callId", callId)
      .put("idempotencyKey", idempotencyKey)
      .put("principal", principal)
      .put("roles", new JsonArray(roles))
      .put("tool", tool)
      .put("args", args)
      .put("nodeId", nodeId)
      .put("selector", selector)
      .put("timeoutMs", timeoutMs)
      .put("stream", stream)
      .put("signature", signature);
  }

  @SuppressWarnings("unchecked")
  public static ToolCall fromJson(JsonObject j) {
    JsonArray roles = j.getJsonArray("roles", new JsonArray());
    return new ToolCall(j.getString("callId"), j.getString("idempotencyKey"), j.getString("principal"),
      (List<String>) (List<?>) roles.getList(), j.getString("tool"), j.getJsonObject("args"),
      j.getString("nodeId"), j.getJsonObject("selector"), j.getLong("timeoutMs", 0L),
      j.getBoolean("stream", false), j.getString("signature"));
  }
}
