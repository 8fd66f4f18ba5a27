package io.fleetbus.hub.routing;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.Ask;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * Where a call runs, and getting it there: the routing step of the request path (approval → routing → node). Served
 * by {@link RouterVerticle} on the hub's own bus ({@link RoutingBus}); failures carry a FailureCode (404 unknown node,
 * 503 no eligible node, 403 capability tier, 400 platform, 504 no answer in time).
 */
public interface RoutingService {

  /**
   * Carries {@code call} to its node — the named one, the least loaded of those its selector picks (or the one its
   * plan pinned), or every one of them for a fan-out — and answers with the node's proven result.
   */
  @Ask(address = Addresses.HUB_ROUTE, timeoutMs = 5000, plusWaitOf = 0)
  Future<ToolResult> route(ToolCall call);

  /**
   * What is known before a person is asked to approve {@code call}: whether it can run at all (policy, and each
   * node's own dry check) and, for a selector, on exactly which nodes — the selector is resolved here, once, and the
   * plan's call carries the nodes it will run on. Never fails for a refusal: the plan says who refused and why.
   */
  Future<RoutePlan> plan(ToolCall call);

  /**
   * Succeeds when this hub can reach node {@code nodeId} now (it is online as this hub sees it); 503 naming why not,
   * saying an approval stays pending (issue 34: a hub decides an approval only while it reaches the node).
   */
  Future<Void> reachable(String nodeId);

  /**
   * Has node {@code nodeId}'s journal refuse call {@code callId} for good (a deny or withdrawal, {@code decision} =
   * {@code {decision, by, hub, at}}): answers the node's proven word {@code {callId, nodeId, refused, journal?}}; 503
   * when this hub cannot reach the node (offline here, or no answer in time): nothing was decided.
   */
  @Ask(timeoutMs = 6000)
  Future<JsonObject> refuseCall(String nodeId, String callId, JsonObject decision);

  /**
   * What node {@code nodeId}'s journal holds of call {@code callId} once the call is journaled there (an approved call
   * just delivered), waiting up to {@code waitMs}: {@code {state: running|done|refused|not_received…, refusal?}}.
   */
  @Ask(timeoutMs = 8000, plusWaitOf = 2)
  Future<JsonObject> callJournaled(String nodeId, String callId, long waitMs);

  /** How node {@code nodeId} says call {@code callId} ended, waiting up to {@code waitMs} while it still runs. */
  @Ask(address = Addresses.HUB_CALL_STATUS, timeoutMs = 8000, plusWaitOf = 2)
  Future<JsonObject> callStatus(String nodeId, String callId, long waitMs);
}
