package io.fleetbus.hub.calls;

import io.fleetbus.hub.consent.Approval;
import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Outcomes a caller could not hear, recovered from the node that ran the call (its once-only journal): after a
 * reply timeout, a node that left mid-call, or a hub that died while carrying calls out. Never re-runs a call the
 * node received; carries out an approved call whose hub died before delivering it. Confined to the event loop
 * of the {@link CallLedger} that keeps it.
 */
public final class OutcomeRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(OutcomeRecovery.class);
  private static final long TAKEOVER_WAIT_MS = 600_000;
  /** A taken-over call whose node could not tell is asked again after this pause, doubled each time up to the next. */
  private static final long RETRY_FIRST_MS = 1000;
  private static final long RETRY_MAX_MS = 30_000;

  private final CallRecords calls;
  /** The approval of an approval id as this hub knows it (null when unknown). */
  private final Function<String, Approval> approvals;
  private final CallTruth truth;
  private final CallAuditor auditor;
  private final FleetState fleet;
  private final String hubId;
  private final Consumer<ToolCall> route;
  /** Calls this hub took over from a hub that died and has not settled, as taken over (their node is asked again). */
  private final Map<String, CallRecord> adopted = new HashMap<>();
  /**
   * Of those, the ones whose node is being asked right now, by the number of that ask (a query meanwhile does not ask
   * again; the answer to an ask a newer one replaced is dropped).
   */
  private final Map<String, Long> askingNode = new HashMap<>();
  private long asks;
  private final io.vertx.core.Vertx vertx;
  /** The pause before an approved call whose delivery failed is tried again, by call: doubled each time. */
  private final Map<String, Long> redelivery = new HashMap<>();
  /** Takes a call over fleet-wide (compare-and-set on its open record): exactly one hub carries it out again. */
  private Function<CallRecord, io.vertx.core.Future<Boolean>> claim = rec -> io.vertx.core.Future.succeededFuture(true);

  /** @param route carries an approved call out from this hub (its end is recorded and audited as usual) */
  public OutcomeRecovery(io.vertx.core.Vertx vertx, CallRecords calls, Function<String, Approval> approvals,
                         CallTruth truth, CallAuditor auditor, FleetState fleet, String hubId, Consumer<ToolCall> route) {
    this.vertx = vertx;
    this.calls = calls;
    this.approvals = approvals;
    this.truth = truth;
    this.auditor = auditor;
    this.fleet = fleet;
    this.hubId = hubId;
    this.route = route;
  }

  /**
   * A call's record once it finished (or as it is after {@code waitMs}). When its caller could not hear the
   * outcome — the answer timed out, the node left, or the hub routing it is gone — the node is asked.
   */
  public io.vertx.core.Future<CallRecord> record(String callId, long waitMs) {
    return calls.await(callId, waitMs).compose(rec -> {
      if (rec == null) {
        return io.vertx.core.Future.failedFuture(FailureCode.NOT_FOUND.exception("no call " + callId
          + " is known to the fleet's hubs"));
      }
      boolean orphaned = CallRecord.RUNNING.equals(rec.status()) && fleet != null && rec.hub() != null
        && (!hubId.equals(rec.hub()) && !fleet.isMember(rec.hub()) || adopted.containsKey(callId));
      if (!rec.outcomeUnknown() && !orphaned || askingNode.containsKey(callId)) {
        return io.vertx.core.Future.succeededFuture(rec);
      }
      return truth.ask(rec).compose(told -> settle(told).map(v -> {
        CallRecord now = calls.get(callId);
        return now != null ? now : told;
      }));
    });
  }

  /**
   * A hub died with calls it was carrying out: their answers went with it. One surviving hub takes each over
   * (compare-and-set on its record) and asks its node, waiting while it still runs: the node's outcome finishes
   * the record (waiters on any hub hear it); an approved call the node never received is carried out here —
   * approved work is not lost, and the node's journal still runs it at most once.
   */
  public void hubLeft(String deadHub) {
    calls.unfinishedOf(deadHub).onSuccess(entries -> entries.forEach(e -> {
      CallRecord rec = CallRecord.fromStoredJson(e.value()).withHub(hubId);
      calls.claim(e, rec).onSuccess(won -> {
        if (won) {
          LOG.info("call taken over from a hub that left [call: {}, node: {}, hub: {}]", rec.callId(), rec.nodeId(), deadHub);
          adopted.put(rec.callId(), rec);
          askAdopted(rec, System.currentTimeMillis() + TAKEOVER_WAIT_MS, RETRY_FIRST_MS);
        }
      });
    }));
  }

  /** How this hub takes a call over fleet-wide (the sweeper's compare-and-set on its open record). */
  void claimWith(Function<CallRecord, io.vertx.core.Future<Boolean>> claimer) {
    this.claim = claimer;
  }

  /** Whether this hub already follows the call (taken over, or its node being asked). */
  boolean following(String callId) {
    return adopted.containsKey(callId) || askingNode.containsKey(callId);
  }

  /** A call nobody carries (the sweeper found it): its node is asked until it tells, for up to ten minutes. */
  void adopt(CallRecord rec) {
    adopted.put(rec.callId(), rec);
    askAdopted(rec, System.currentTimeMillis() + TAKEOVER_WAIT_MS, RETRY_FIRST_MS);
  }

  /**
   * An approved call whose delivery failed because its node could not be reached (issue 34, item 3): kept open and
   * followed like a call taken over — its node asked again after a growing pause and as soon as it is back, the call
   * carried out if the node never received it, while the approval is valid; at the approval's expiry it ends with
   * the reason. Never a record left {@code approved} and never run. True when {@code call} is such a call (its
   * answer failed 503 or 504 for want of its node): then it is not ended now.
   */
  public boolean undelivered(ToolCall call, Throwable err) {
    CallRecord rec = calls.get(call.callId());
    Approval approval = rec == null || rec.approvalId() == null ? null : approvals.apply(rec.approvalId());
    FailureCode code = FailureCode.of(err);
    if (approval == null || !Approval.APPROVED.equals(approval.status()) || call.nodeId() == null
      || code != FailureCode.NO_ELIGIBLE_NODE && code != FailureCode.TIMEOUT) {
      return false; // an approved call ends as it did: not for want of its node
    }
    if (String.valueOf(err.getMessage()).contains("outcome is unknown")) {
      return false; // it may have reached the node: the lost-call rule (GET /calls/{id} asks the node's journal)
    }
    follow(rec, approval);
    return true;
  }

  private void follow(CallRecord rec, Approval approval) {
    long pause = redelivery.merge(rec.callId(), RETRY_FIRST_MS, (old, x) -> Math.min(old * 2, RETRY_MAX_MS));
    CallRecord open = rec.withoutResult().running(hubId);
    calls.put(open);
    adopted.put(rec.callId(), open);
    LOG.info("approved call not delivered: its node is asked again [call: {}, node: {}, in: {} ms, until: {}]",
      rec.callId(), rec.nodeId(), pause, java.time.Instant.ofEpochMilli(approval.expiresAt()));
    vertx.setTimer(pause, t -> {
      if (adopted.containsKey(rec.callId()) && !askingNode.containsKey(rec.callId())) {
        askAdopted(open, approval.expiresAt(), pause);
      }
    });
  }

  /**
   * A followed call whose node could not tell by {@code until}: it ends with the reason (audited), so no record
   * stays running or approved forever.
   */
  private void giveUp(CallRecord rec) {
    adopted.remove(rec.callId());
    redelivery.remove(rec.callId());
    Approval approval = rec.approvalId() == null ? null : approvals.apply(rec.approvalId());
    String why = approval != null && Approval.APPROVED.equals(approval.status())
      ? "approved, but node " + rec.nodeId() + " was unreachable until the approval expired at "
        + java.time.Instant.ofEpochMilli(approval.expiresAt()) + "; it is not delivered again"
      : "node " + rec.nodeId() + " could not say how the call ended within " + TAKEOVER_WAIT_MS / 60_000 + " min";
    LOG.warn("call ended unresolved [call: {}, reason: {}]", rec.callId(), why);
    settle(rec.resolved(ToolResult.error(rec.callId(), rec.nodeId(), FailureCode.TIMEOUT, why + " (if an earlier"
      + " delivery reached the node, its journal ran the call at most once)", 0), "unresolved: " + why));
  }

  /**
   * A node is online again (on any hub: this hub's monitor tracks every node): the calls taken over while it was
   * away — an edge node relinking after the hub holding its link died — are asked again now (issue 35), not when a
   * caller happens to query them. A same-key retry waiting for such a call hears the node's outcome then.
   */
  public void nodeBack(String nodeId) {
    adopted.values().stream().filter(rec -> nodeId != null && nodeId.equals(rec.nodeId())).toList().forEach(rec -> {
      LOG.info("asking a taken-over call's node again: it is back [call: {}, node: {}]", rec.callId(), nodeId);
      askAdopted(rec, System.currentTimeMillis() + TAKEOVER_WAIT_MS, RETRY_FIRST_MS);
    });
  }

  /**
   * Asks a taken-over call's node how it ended, waiting while it still runs. An ask that could not tell (the node
   * was offline, or the ask was lost on its way: a link through the hub that died) is made again after a growing
   * pause until {@code until}, besides at once when the node is back ({@link #nodeBack}).
   */
  private void askAdopted(CallRecord rec, long until, long pauseMs) {
    long ask = ++asks;
    askingNode.put(rec.callId(), ask);
    truth.ask(rec, Math.max(0, until - System.currentTimeMillis())).onComplete(ar -> {
      if (!Long.valueOf(ask).equals(askingNode.get(rec.callId()))) {
        return; // a newer ask replaced this one
      }
      askingNode.remove(rec.callId());
      CallRecord told = ar.succeeded() ? ar.result() : rec;
      settle(told);
      if (told.resolution() == null && adopted.containsKey(rec.callId()) && System.currentTimeMillis() >= until) {
        giveUp(told);
      } else if (told.resolution() == null && adopted.containsKey(rec.callId())) {
        vertx.setTimer(pauseMs, t -> {
          if (adopted.containsKey(rec.callId()) && !askingNode.containsKey(rec.callId())) {
            askAdopted(rec, until, Math.min(pauseMs * 2, RETRY_MAX_MS));
          }
        });
      }
    });
  }

  /**
   * What the node said, recorded; for a call taken over from a dead hub, an approved call the node never received
   * is carried out now (a call whose hub is alive and timed out is not: its caller was told the outcome is unknown
   * and may have retried).
   */
  private io.vertx.core.Future<Void> settle(CallRecord told) {
    Approval approval = told.approvalId() == null ? null : approvals.apply(told.approvalId());
    boolean neverRan = told.resolution() != null && told.resolution().startsWith("never ran");
    if (neverRan && adopted.containsKey(told.callId()) && approval != null && Approval.APPROVED.equals(approval.status())) {
      if (System.currentTimeMillis() >= approval.expiresAt()) {
        giveUp(told.withoutResult());
        return io.vertx.core.Future.succeededFuture();
      }
      adopted.remove(told.callId());
      return claim.apply(told.withoutResult().running(hubId)).map(won -> {
        if (won) {
          LOG.info("carrying out an approved call not delivered yet [call: {}, node: {}]", told.callId(), told.nodeId());
          route.accept(approval.call());
        } else {
          LOG.info("another hub carries this approved call out [call: {}]", told.callId());
        }
        return null;
      });
    } else if (told.resolution() != null) {
      adopted.remove(told.callId());
      CallRecord known = calls.get(told.callId());
      if (known != null && known.resolution() != null) {
        return io.vertx.core.Future.succeededFuture(); // another ask (a query's, a takeover's) resolved it: audited once
      }
      // audited before anyone hears of it; recorded even if the audit failed (the failure is logged)
      return auditor.resolved(told).transform(audited -> {
        if (audited.failed()) {
          LOG.error("resolved call not audited [call: {}, reason: {}]", told.callId(), audited.cause().getMessage());
        }
        calls.put(told);
        return io.vertx.core.Future.<Void>succeededFuture();
      });
    }
    return io.vertx.core.Future.succeededFuture();
  }
}
