package io.fleetbus.hub.calls;

import io.fleetbus.shared.bus.Ask;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * A call after it entered the hub, for whoever asks about it (GET and cancel in every frontend, the audit check):
 * served by {@link CallLedger} on {@link CallBus}. Failures carry a FailureCode (404 unknown call, 403 not yours,
 * 409 already finished).
 */
public interface CallService {
  /**
   * The call's record once it finished, or as it is after {@code waitMs}; when its caller could not hear the outcome
   * (a timeout, a node or hub gone) its node is asked how it ended.
   */
  @Ask(timeoutMs = 5000, plusWaitOf = 1)
  Future<CallRecord> record(String callId, long waitMs);

  /**
   * Withdraws a pending call (its approval is cancelled; it never runs) or asks its node to stop a running one (its
   * process tree is killed). Only the caller, an approver or an admin ({@code roles}) may.
   */
  // waits for the node's answer: its control request gives up after 6 s
  @Ask(timeoutMs = 10_000)
  Future<JsonObject> cancel(String callId, String by, List<String> roles);

  /** The ids of the calls whose end this hub recorded since it started: each must have its audit entry. */
  Future<JsonArray> ended();
}
