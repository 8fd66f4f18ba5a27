package io.fleetbus.hub.approval;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.Ask;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The approval step of the request path (API → approval → routing → node) and the human step behind it: served by
 * {@link ApprovalVerticle} on {@link ApprovalBus}. Failures carry a FailureCode (404 unknown tool or approval, 403
 * role or self-approval, 409 already decided or call id used, 408 expired).
 */
public interface ApprovalService {

  /**
   * A call enters approval: tier and role policy; tiers 1-2 are carried out now and answer with the node's result,
   * tier 3 parks for a person and answers at once with status {@code pending_approval} (and its approval id).
   */
  @Ask(address = Addresses.HUB_APPROVE, timeoutMs = 10_000, plusWaitOf = 0)
  Future<ToolResult> submit(ToolCall call);

  /** Every approval this hub knows (the fleet's), or only those with {@code status} (null: all), as JSON. */
  @Ask(timeoutMs = 10_000)
  Future<JsonArray> list(String status);

  /** A person's decision on a pending approval; answers the approval as decided (an approved call then runs). */
  @Ask(timeoutMs = 10_000)
  Future<JsonObject> decide(Decision decision);
}
