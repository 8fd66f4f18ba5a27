package io.fleetbus.hub.calls;

import io.fleetbus.hub.cluster.SharedMap;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * No record stays {@code running} forever (issue 34, item 3): every {@link #EVERY_MS} (each hub on its own schedule,
 * the first sweep at a random point of the first period) this hub looks at the unfinished calls it keeps. One that
 * nobody carries — not in flight here, no live hub's — and that looked the same a sweep ago is read again from the
 * fleet's maps (a split may have kept this hub from hearing how it ended); if it is still open there, its node's
 * journal is asked ({@link OutcomeRecovery#adopt}). Also the one place a call is taken over by compare-and-set on its
 * open record ({@link #claim}), so exactly one hub carries an approved call out again. Confined to the ledger's loop.
 */
final class RecordSweeper {
  private static final Logger LOG = LoggerFactory.getLogger(RecordSweeper.class);
  static final long EVERY_MS = 10_000;

  private final Context ctx;
  private final CallRecords records;
  private final SharedMap finished;
  private final SharedMap open;
  private final String hubId;
  /** Whether a hub (member id) is alive in this hub's cluster. */
  private final Predicate<String> live;
  /** Calls this hub is carrying out now (their answer awaited here): never swept. */
  private final Set<String> carrying;
  /** Records that looked stale at the last sweep, as they were then. */
  private Map<String, CallRecord> suspects = new HashMap<>();

  RecordSweeper(Context ctx, CallRecords records, SharedMap finished, SharedMap open, String hubId,
                Predicate<String> live, Set<String> carrying) {
    this.ctx = ctx;
    this.records = records;
    this.finished = finished;
    this.open = open;
    this.hubId = hubId;
    this.live = live;
    this.carrying = carrying;
  }

  void start(OutcomeRecovery recovery, long everyMs) {
    ctx.owner().setTimer(1 + ThreadLocalRandom.current().nextLong(everyMs), t -> {
      sweep(recovery);
      ctx.owner().setPeriodic(everyMs, p -> sweep(recovery));
    });
  }

  void sweep(OutcomeRecovery recovery) {
    Map<String, CallRecord> now = new HashMap<>();
    for (CallRecord rec : records.unfinishedHere()) {
      boolean carried = carrying.contains(rec.callId()) || recovery.following(rec.callId())
        || rec.hub() != null && !rec.hub().equals(hubId) && live.test(rec.hub());
      if (!CallRecord.RUNNING.equals(rec.status()) || carried) {
        continue;
      }
      if (rec.equals(suspects.get(rec.callId()))) {
        fresh(rec.callId()).onSuccess(current -> {
          if (current != null && current.isFinished()) {
            LOG.info("stale record refreshed from the fleet's map [call: {}, status: {}]", rec.callId(), current.status());
            records.keep(current);
          } else if (records.get(rec.callId()) != null && !records.get(rec.callId()).isFinished()) {
            LOG.info("nobody carries this call: asking its node [call: {}, node: {}, hub: {}]", rec.callId(),
              rec.nodeId(), rec.hub());
            recovery.adopt(rec.withHub(hubId));
          }
        });
      } else {
        now.put(rec.callId(), rec);
      }
    }
    suspects = now;
  }

  /**
   * Takes {@code next} (running on this hub) over fleet-wide by compare-and-set on its open record, unless it
   * finished or another live hub carries it.
   */
  Future<Boolean> claim(CallRecord next) {
    if (open == null) {
      records.put(next);
      return Future.succeededFuture(true);
    }
    return open.get(ctx, next.callId()).compose(e -> {
      if (e == null || e.value() == null) {
        return open.putIfAbsent(ctx, next.callId(), next.toStoredJson()).map(Objects::isNull)
          .onSuccess(won -> {
            if (won) {
              records.keep(next);
            }
          });
      }
      CallRecord now = CallRecord.fromStoredJson(e.value());
      if (now.isFinished() || now.hub() != null && !now.hub().equals(hubId) && live.test(now.hub())) {
        return Future.succeededFuture(false);
      }
      return records.claim(e, next);
    });
  }

  /** The record as the fleet's maps hold it now (not this hub's copy). */
  private Future<CallRecord> fresh(String callId) {
    if (finished == null) {
      return Future.succeededFuture(records.get(callId));
    }
    return finished.get(ctx, callId).compose(e -> e != null && e.value() != null ? Future.succeededFuture(e)
      : open.get(ctx, callId)).map(e -> e == null || e.value() == null ? null : CallRecord.fromStoredJson(e.value()));
  }
}
