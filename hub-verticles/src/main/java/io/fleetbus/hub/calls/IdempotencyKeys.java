package io.fleetbus.hub.calls;

import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.cluster.SharedMap;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.CanonicalJson;
import io.fleetbus.shared.trust.Digests;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code Idempotency-Key}: the first call a caller makes with a key takes it for 24 h, fleet-wide (a shared
 * map with a backup, so a retry through another hub finds it); the same caller's retry with that key gets
 * the first call instead of a new one, and a different call with it is refused. Keys are per caller, and
 * stored only as a digest. (If every hub restarts at once the keys are gone; the node's journal still
 * answers a tier-2/3 retry with the first result, since it keeps the key too.)
 */
public final class IdempotencyKeys {
  private static final int MAX_LOCAL = 100_000;

  private final SharedMap shared;
  /** A hub that shares nothing keeps its keys here (a verticle tested on its own). */
  private final Map<String, JsonObject> local = new LinkedHashMap<>(256, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, JsonObject> eldest) {
      return size() > MAX_LOCAL || eldest.getValue().getLong("at") < System.currentTimeMillis() - FleetState.DAY_MS;
    }
  };

  public IdempotencyKeys(FleetState fleet) {
    // the first call of a key stands: after a split the merge keeps one entry per key (PutIfAbsentMergePolicy), which
    // may be older than the one this hub's half wrote; it is the key's first call, not a replay
    this.shared = fleet == null ? null : fleet.map(FleetState.IDEMPOTENCY, FleetState.DAY_MS).firstWriteWins();
  }

  /**
   * Null when {@code call} is the first with its key (it now holds the key); else the id of the first call.
   * Fails with 409 when the key was used for a different call (another tool, other arguments or target).
   */
  public Future<String> claim(Context ctx, ToolCall call) {
    String key = keyOf(call);
    JsonObject mine = new JsonObject().put("callId", call.callId()).put("what", whatOf(call))
      .put("at", System.currentTimeMillis());
    Future<JsonObject> earlier;
    if (shared == null) {
      JsonObject e = local.get(key);
      if (e != null && e.getLong("at") < System.currentTimeMillis() - FleetState.DAY_MS) {
        e = null;
      }
      if (e == null) {
        local.put(key, mine);
      }
      earlier = Future.succeededFuture(e);
    } else {
      earlier = shared.putIfAbsent(ctx, key, mine).compose(e -> e == null || e.value() != null
        ? Future.succeededFuture(e == null ? null : e.value())
        // the key holds an entry no hub of this fleet wrote (junk, a replay): this call takes the key over from it
        : shared.replace(ctx, e, mine).compose(won -> won ? Future.succeededFuture(null) : Future.failedFuture(
          FailureCode.CONFLICT.exception("Idempotency-Key '" + call.idempotencyKey() + "' is being taken by another"
            + " call right now; retry in a moment"))));
    }
    return earlier.compose(first -> {
      if (first == null) {
        return Future.succeededFuture(null);
      }
      if (!first.getString("what").equals(mine.getString("what"))) {
        return Future.failedFuture(FailureCode.CONFLICT.exception("Idempotency-Key '" + call.idempotencyKey()
          + "' was used in the last 24 h for a different call (call " + first.getString("callId") + ": another tool,"
          + " other arguments or another target); use a new key for a new call"));
      }
      return Future.succeededFuture(first.getString("callId"));
    });
  }

  /**
   * What a retry with the key gets: the first call's outcome, awaited up to {@code waitMs} while it runs (and while
   * its record is on its way from the hub that took the key); its pending approval at once. Never a second run, and
   * never a 409 for the same call: after the wait a call still running is 504 (its outcome: GET /calls/{id}).
   */
  public Future<ToolResult> firstOutcome(CallRecords calls, String firstCallId, long waitMs) {
    // fault switch for tests only: as before issue 21, a record not shared yet is "no longer known" (409)
    Future<CallRecord> settled = FaultSwitch.IDEMPOTENCY_NO_WAIT.on()
      ? calls.await(firstCallId, 0) : calls.awaitSettled(firstCallId, waitMs);
    return settled.compose(rec -> {
      if (rec == null) {
        return Future.failedFuture(FailureCode.CONFLICT.exception("the first call with this Idempotency-Key ("
          + firstCallId + ") is no longer known to the fleet's hubs; use a new key"));
      }
      if (CallRecord.PENDING.equals(rec.status())) {
        return Future.succeededFuture(ToolResult.pending(rec.callId(), rec.nodeId(), rec.approvalId()));
      }
      if (!rec.isFinished()) {
        return Future.failedFuture(FailureCode.TIMEOUT.exception("call " + rec.callId() + " with this Idempotency-Key"
          + " is still running after " + waitMs / 1000 + " s; its outcome: GET /api/v1/calls/" + rec.callId()));
      }
      return rec.result().isOk() || rec.result().isCancelled() ? Future.succeededFuture(rec.result())
        : Future.failedFuture(FailureCode.of(rec.result().errorCode()).exception(rec.result().errorMessage()));
    });
  }

  /** Gives the key back: the call that took it was never accepted (its approval could not be stored). */
  public void release(Context ctx, ToolCall call) {
    String key = keyOf(call);
    if (shared == null) {
      local.remove(key);
    } else {
      shared.remove(ctx, key);
    }
  }

  private static String keyOf(ToolCall call) {
    return Digests.sha256Hex(call.principal() + "\u0000" + call.idempotencyKey());
  }

  /** What the call does: tool, arguments and target, as a digest. */
  private static String whatOf(ToolCall call) {
    return CanonicalJson.sha256(new JsonObject().put("tool", call.tool()).put("args", call.args())
      .put("node", call.nodeId()).put("selector", call.selector()));
  }
}
