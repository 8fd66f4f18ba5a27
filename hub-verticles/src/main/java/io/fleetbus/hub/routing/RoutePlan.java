package io.fleetbus.hub.routing;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * Routing's answer before a call parks for a person: the call as it will run — a selector resolved to the nodes it
 * runs on (one, or every eligible one for a fan-out), so the person approves named machines and the approved call
 * never reaches one that joins later — or why no approval could make it run.
 *
 * @param call    the call to park: unchanged for a named node, pinned to its nodes for a selector; null when refused
 * @param refusal why it can never run, or null
 * @param checked what each asked node's dry check said (or why it was not asked), by node id
 */
public record RoutePlan(ToolCall call, Refusal refusal, JsonObject checked) {

  /** Who refused a call ({@code policy}, or {@code node <id>} for a node's dry check), with the code a caller gets. */
  public record Refusal(FailureCode code, String message, String by) {
  }

  public static RoutePlan runs(ToolCall call, JsonObject checked) {
    return new RoutePlan(call, null, checked);
  }

  /** The call pinned to {@code nodes}: routing it later runs it there and nowhere else. */
  public static RoutePlan pinned(ToolCall call, List<String> nodes, JsonObject checked) {
    JsonObject selector = call.selector() == null ? new JsonObject() : call.selector().copy();
    return runs(call.withSelector(selector.put("nodes", new JsonArray(nodes))), checked);
  }

  public static RoutePlan refused(FailureCode code, String message, String by, JsonObject checked) {
    return new RoutePlan(null, new Refusal(code, message, by), checked);
  }

  public boolean isRefused() {
    return refusal != null;
  }
}
