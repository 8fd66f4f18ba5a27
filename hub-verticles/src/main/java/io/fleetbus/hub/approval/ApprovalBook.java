package io.fleetbus.hub.approval;

import io.fleetbus.hub.cluster.SharedMap;
import io.fleetbus.hub.consent.Approval;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.fault.FaultSwitch;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The approvals a hub knows: on its own disk (SQLite: a restart loses none), in the fleet's shared map
 * (the other hubs list and decide them; a backup on another hub survives this one), and a local view for
 * listing. A change of state is a compare-and-set on the shared map, so exactly one hub's decision, expiry
 * or withdrawal wins. Confined to the approval verticle's event loop.
 */
final class ApprovalBook {
  private static final Logger LOG = LoggerFactory.getLogger(ApprovalBook.class);

  private final Context ctx;
  private final ApprovalStore store;
  private final SharedMap shared;
  private final Map<String, Approval> approvals = new LinkedHashMap<>();
  /** Told of a pending approval another hub made, the first time this hub sees it. */
  private Consumer<Approval> onForeignPending = a -> { };

  /** @param shared the fleet's map; null for a hub that shares nothing (a verticle tested on its own) */
  ApprovalBook(Context ctx, ApprovalStore store, SharedMap shared) {
    this.ctx = ctx;
    this.store = store;
    this.shared = shared;
  }

  Approval get(String approvalId) {
    return approvals.get(approvalId);
  }

  /** What this hub's disk holds: pending ones and the {@code recentDecided} latest decided ones. */
  Future<List<Approval>> load(int recentDecided) {
    return store.load(recentDecided).map(stored -> {
      stored.forEach(a -> approvals.put(a.approvalId(), a));
      return stored;
    });
  }

  /**
   * Offers the pending approvals this hub kept on disk to the fleet (the fleet's own state wins), takes in the
   * fleet's, and follows the other hubs' changes from now on.
   */
  Future<Void> join(List<Approval> stored, Consumer<Approval> onForeignPending) {
    this.onForeignPending = onForeignPending;
    if (shared == null) {
      return Future.succeededFuture();
    }
    shared.listen(ctx, (id, json) -> {
      if (json != null) {
        adopt(Approval.fromStoredJson(json));
      }
    });
    Future<Void> offered = Future.succeededFuture();
    for (Approval a : stored) {
      if (a.isPending()) {
        offered = offered.compose(v -> shared.putIfAbsent(ctx, a.approvalId(), a.toStoredJson()).mapEmpty());
      }
    }
    return offered.compose(v -> refresh());
  }

  /** A new pending approval: on this hub's disk, then in the fleet's map (its backup holds it once this completes). */
  Future<Approval> open(Approval a) {
    return store.save(a)
      .compose(v -> shared == null ? Future.succeededFuture() : shared.set(ctx, a.approvalId(), a.toStoredJson()))
      .map(v -> {
        approvals.put(a.approvalId(), a);
        return a;
      });
  }

  /** Every approval, up to date with the fleet's map (change events from other hubs may still be on their way). */
  Future<List<Approval>> list() {
    return refresh().otherwiseEmpty().map(v -> new ArrayList<>(approvals.values()));
  }

  /**
   * Moves an approval on, fleet-wide: {@code change} sees the current state (and may refuse by throwing a
   * FleetException); a compare-and-set lets exactly one hub's change win — a loser retries and sees the winner's
   * state. The winner's new state is then kept on this hub's disk as well.
   */
  Future<Approval> transition(String approvalId, Function<Approval, Approval> change) {
    Future<SharedMap.Entry> current = shared == null ? Future.succeededFuture(null) : shared.get(ctx, approvalId);
    return current.compose(entry -> {
      Approval a = current(approvalId, entry);
      if (a == null) {
        return Future.failedFuture(FailureCode.NOT_FOUND.exception("no approval " + approvalId));
      }
      Approval next = change.apply(a);
      Future<Boolean> won = shared == null ? Future.succeededFuture(true)
        : entry != null ? shared.replace(ctx, entry, next.toStoredJson())
        : shared.putIfAbsent(ctx, approvalId, next.toStoredJson()).map(Objects::isNull);
      return won.compose(w -> {
        if (!w) {
          return transition(approvalId, change);
        }
        approvals.put(approvalId, next);
        persist(next);
        return Future.succeededFuture(next);
      });
    });
  }

  /**
   * The approval's state: the fleet's entry, unless this hub took none from it (junk, a replay) or its own copy (memory,
   * loaded from SQLite) has it decided while the entry says pending: a decision never comes back (issue 32). A stale
   * entry is then replaced by the transition's compare-and-set, or stays refused by the change.
   */
  private Approval current(String approvalId, SharedMap.Entry entry) {
    Approval mine = approvals.get(approvalId);
    if (entry == null || entry.value() == null) {
      return mine;
    }
    Approval theirs = Approval.fromStoredJson(entry.value());
    if (mine != null && !mine.isPending() && theirs.isPending() && !FaultSwitch.NO_SHARED_FRESHNESS.on()) {
      LOG.warn("shared approval refused [approval: {}, reason: pending in the fleet's map, {} on this hub (a replay)]",
        approvalId, mine.status());
      return mine;
    }
    return theirs;
  }

  private Future<Void> refresh() {
    if (shared == null) {
      return Future.succeededFuture();
    }
    return shared.entries(ctx).map(all -> {
      all.forEach(e -> adopt(Approval.fromStoredJson(e.value())));
      return null;
    });
  }

  /** An approval as another hub stored or decided it: listed here and kept on this hub's disk too. */
  private void adopt(Approval a) {
    Approval mine = approvals.get(a.approvalId());
    if (a.equals(mine) || mine != null && !mine.isPending() && a.isPending()) {
      return; // known, or an older state than ours
    }
    approvals.put(a.approvalId(), a);
    persist(a);
    if (mine == null && a.isPending()) {
      onForeignPending.accept(a);
    }
  }

  private void persist(Approval a) {
    store.save(a).onFailure(err -> LOG.error("approval state not stored on this hub's disk [approval: {}, status: {},"
      + " reason: {}]", a.approvalId(), a.status(), err.getMessage()));
  }
}
