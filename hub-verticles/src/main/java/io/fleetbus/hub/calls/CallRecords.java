package io.fleetbus.hub.calls;

import io.fleetbus.hub.cluster.SharedMap;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The call records {@code GET /api/v1/calls/{id}} reads: recent ones in this hub's memory, and every hub's
 * in shared maps for 24 h, so any hub answers for any call, a waiter on one hub hears of a call another
 * hub finished, and a record outlives the hub that made it. Confined to the event loop of the {@link CallLedger} that keeps it.
 * <p>
 * Two maps: a call not finished yet (pending approval, running) is in {@code open}, which is never evicted, so a hub
 * taking over a dead hub's calls finds every one of them (and reads only those); a finished call moves to
 * {@code finished}, which keeps the newest within a heap budget (a record holds its whole result).
 */
public final class CallRecords {
  private static final Logger LOG = LoggerFactory.getLogger(CallRecords.class);
  /**
   * This hub's own copy is a cache in front of the fleet's maps (which keep about 5,400 small finished records): the calls
   * of the last second or so at full load, a query soon after its answer, every call not finished. Older ones are read
   * from the map. 10,000 here held about 15 MiB of the hub's heap for little.
   */
  private static final int MAX_LOCAL = 2_000;
  /** The estimated JSON this hub's own copy of records may weigh (2,000 small records; about 40 of 100 KiB). */
  private static final long MAX_LOCAL_WEIGHT = 4L << 20;

  private final Context ctx;
  private final FinishedRecords shared;
  private final SharedMap open;
  /** Calls whose unfinished record this hub put in {@code open} (or took over there): its finish removes it. */
  private final java.util.Set<String> openHere = new java.util.HashSet<>();
  /** This hub's own copy: recent records, bounded by count and by weight (a record holds its call's result). */
  private final KeptRecords local = new KeptRecords(MAX_LOCAL, MAX_LOCAL_WEIGHT);
  /** Waiters for a call's end. */
  private final RecordWaiters waiters = new RecordWaiters();
  /** Waiters for a call's first shareable state: pending approval (once stored) or finished. */
  private final RecordWaiters settleWaiters = new RecordWaiters();
  /** Calls being parked here: their pending record is not shared yet (their approval is being stored). */
  private final java.util.Set<String> parking = new java.util.HashSet<>();
  /** Records shared only if still current when due ({@link #putSoon}), in the order they fall due. */
  private final Map<String, Soon> soon = new LinkedHashMap<>();
  private long soonTimer = -1;

  private record Soon(CallRecord rec, long dueNanos) {
  }

  /**
   * @param finished the fleet's map of finished calls (records whose stored form is at most {@code smallChars});
   *                 null (with the others) for a hub that shares nothing (a verticle tested on its own)
   * @param large    the fleet's map of larger finished records
   * @param open     the fleet's map of calls not finished yet
   */
  public CallRecords(Context ctx, SharedMap finished, SharedMap large, int smallChars, SharedMap open) {
    this.ctx = ctx;
    this.shared = finished == null ? null : new FinishedRecords(finished, large, smallChars);
    this.open = open;
  }

  /** Hears the records other hubs write from now on. */
  public void follow() {
    if (shared != null) {
      java.util.function.BiConsumer<String, io.vertx.core.json.JsonObject> onChange = (callId, json) -> {
        if (json != null) {
          learned(CallRecord.fromStoredJson(json));
        }
      };
      shared.listen(ctx, onChange);
      open.listen(ctx, onChange);
    }
  }

  public CallRecord get(String callId) {
    return local.get(callId);
  }

  public boolean taken(String callId) {
    return local.containsKey(callId);
  }

  /** Records a change this hub made, for everyone; waiters hear of a finished call. */
  public void put(CallRecord rec) {
    keepOwn(rec);
    share(rec);
  }

  /** The first half of {@link #put}: a change this hub made, known here (waiters hear of it); not shared yet. */
  public void keepOwn(CallRecord rec) {
    parking.remove(rec.callId());
    soon.remove(rec.callId());
    keep(rec);
  }

  /**
   * The second half of {@link #put}: the record written to the fleet's maps (not waited for). A finished record goes
   * to {@code finished} first, then leaves {@code open} (a reader looks there second), unless it can never have been
   * there: a read that ended before it was shared while running, with no approval, as nearly every call (one write).
   */
  public void share(CallRecord rec) {
    if (shared == null) {
      return;
    }
    String id = rec.callId();
    if (!rec.isFinished()) {
      openHere.add(id);
      open.set(ctx, id, rec.toStoredJson()).onFailure(err -> notShared(id, err));
      return;
    }
    boolean wasOpen = openHere.remove(id) || rec.tier() > 1 || rec.approvalId() != null;
    shared.set(ctx, id, rec.toStoredJson()).onComplete(ar -> {
      if (ar.failed()) {
        notShared(id, ar.cause());
      } else if (wasOpen) {
        open.remove(ctx, id);
      }
    });
  }

  private static void notShared(String callId, Throwable err) {
    LOG.warn("call record not shared with the other hubs [call: {}, reason: {}]", callId, err.getMessage());
  }

  /**
   * Records a change this hub made at once, and shares it with the other hubs only if it is still the call's latest
   * after {@code delayMs}: a call that finishes sooner shares only its finished record ({@link #put}), one map write
   * instead of two.
   */
  public void putSoon(CallRecord rec, long delayMs) {
    if (shared == null) {
      put(rec);
      return;
    }
    parking.remove(rec.callId());
    keep(rec);
    soon.put(rec.callId(), new Soon(rec, System.nanoTime() + delayMs * 1_000_000));
    if (soonTimer < 0) {
      soonTimer = ctx.owner().setTimer(Math.max(1, delayMs), t -> shareDue());
    }
  }

  /** Shares the records whose time came (oldest first); waits again for the next one. */
  private void shareDue() {
    soonTimer = -1;
    long now = System.nanoTime();
    List<CallRecord> due = new ArrayList<>();
    for (Soon next : soon.values()) {
      if (next.dueNanos() - now > 0) {
        soonTimer = ctx.owner().setTimer(Math.max(1, (next.dueNanos() - now) / 1_000_000), t -> shareDue());
        break;
      }
      due.add(next.rec());
    }
    due.forEach(this::put);
  }

  /** Known here only (restored from this hub's disk, or a copy of another hub's). */
  public void keep(CallRecord rec) {
    local.put(rec);
    if (rec.isFinished()) {
      waiters.complete(rec);
    }
    if (settled(rec)) {
      settleWaiters.complete(rec);
    }
  }

  /** A call being parked for approval: its id is taken here at once, its record is shared once the approval is stored. */
  public void parking(CallRecord pending) {
    parking.add(pending.callId());
    keep(pending);
  }

  public void forget(String callId) {
    parking.remove(callId);
    soon.remove(callId);
    local.remove(callId);
    openHere.remove(callId);
    if (shared != null) {
      shared.remove(ctx, callId);
      open.remove(ctx, callId);
    }
  }

  /** This hub's record, else the fleet's (null if none); one pending here is looked up there too (a split hid it). */
  public Future<CallRecord> find(String callId) {
    CallRecord rec = local.get(callId);
    if (rec != null && shared != null && CallRecord.PENDING.equals(rec.status()) && !parking.contains(callId)) {
      return shared.get(ctx, callId).map(e -> e == null || e.value() == null ? rec
        : learned(CallRecord.fromStoredJson(e.value()))).otherwise(rec);
    }
    if (rec != null || shared == null) {
      return Future.succeededFuture(rec);
    }
    return shared.get(ctx, callId).compose(e -> e != null && e.value() != null ? Future.succeededFuture(e)
      : open.get(ctx, callId)).map(e -> {
      if (e == null || e.value() == null) {
        return null;
      }
      CallRecord remote = CallRecord.fromStoredJson(e.value());
      local.putIfAbsent(remote);
      // (a record heavier than the whole budget is not kept here, but still answered)
      return local.getOrDefault(callId, remote);
    });
  }

  /** The record once the call finished, or as it is after {@code waitMs}; null when no hub knows the call. */
  public Future<CallRecord> await(String callId, long waitMs) {
    return find(callId).compose(rec -> {
      if (rec == null || rec.isFinished() || waitMs <= 0) {
        return Future.succeededFuture(rec);
      }
      Promise<CallRecord> p = Promise.promise();
      waiters.add(callId, p);
      ctx.owner().setTimer(waitMs, t -> {
        waiters.remove(callId, p);
        p.tryComplete(local.getOrDefault(callId, rec));
      });
      return p.future();
    });
  }

  /**
   * What a retry with the first call's idempotency key answers with: the call once it waits for a person (its
   * approval stored) or once it finished, whichever comes first, on whichever hub it was made; after {@code waitMs}
   * the record as it is then (still running), or null when no hub has heard of the call by then.
   */
  public Future<CallRecord> awaitSettled(String callId, long waitMs) {
    Promise<CallRecord> p = Promise.promise();
    // listen first: the record may arrive from another hub while this hub looks it up in the shared map
    settleWaiters.add(callId, p);
    long timer = ctx.owner().setTimer(Math.max(1, waitMs), t -> p.tryComplete(local.get(callId)));
    p.future().onComplete(done -> {
      ctx.owner().cancelTimer(timer);
      settleWaiters.remove(callId, p);
    });
    find(callId).onSuccess(rec -> {
      CallRecord now = local.getOrDefault(callId, rec);
      // else it settles when its approval is stored or it finishes (keep), here or on another hub
      if (now != null && settled(now)) {
        p.tryComplete(now);
      }
    });
    return p.future();
  }

  private boolean settled(CallRecord rec) {
    return rec.isFinished() || CallRecord.PENDING.equals(rec.status()) && !parking.contains(rec.callId());
  }

  /**
   * The calls a hub was carrying out (running, not finished) as the fleet's map of open calls has them; none without
   * a map. Reads only the open calls, not every finished one.
   */
  public Future<List<SharedMap.Entry>> unfinishedOf(String hub) {
    if (shared == null) {
      return Future.succeededFuture(List.of());
    }
    return open.entries(ctx).map(all -> all.stream().filter(e -> {
      CallRecord rec = CallRecord.fromStoredJson(e.value());
      return hub.equals(rec.hub()) && !rec.isFinished() && CallRecord.RUNNING.equals(rec.status());
    }).toList());
  }

  /** Compare-and-set: true when {@code seen} was still the stored record and {@code next} replaced it (fleet-wide). */
  public Future<Boolean> claim(SharedMap.Entry seen, CallRecord next) {
    return open.replace(ctx, seen, next.toStoredJson()).onSuccess(won -> {
      if (won) {
        openHere.add(next.callId());
        keep(next);
      }
    });
  }

  /** The calls this hub keeps that are not finished (pending or running). */
  public List<CallRecord> unfinishedHere() {
    return local.open();
  }

  /** Another hub's change; an older state never replaces a finished one. Answers the call's record here now. */
  private CallRecord learned(CallRecord rec) {
    if (rec.isFinished()) {
      // another hub finished a call this hub opened (an approval decided there): that hub took it out of the open map
      openHere.remove(rec.callId());
    }
    CallRecord mine = local.get(rec.callId());
    if (mine != null && mine.isFinished() && !rec.isFinished()) {
      return mine;
    }
    keep(rec);
    return local.getOrDefault(rec.callId(), rec);
  }
}
