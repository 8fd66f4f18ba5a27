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

  /** How node {@code nodeId} says call {@code callId} ended, waiting up to {@code waitMs} while it still runs. */
  @Ask(address = Addresses.HUB_CALL_STATUS, timeoutMs = 8000, plusWaitOf = 2)
  Future<JsonObject> callStatus(String nodeId, String callId, long waitMs);
}
