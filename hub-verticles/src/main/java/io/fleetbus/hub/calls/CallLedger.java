package io.fleetbus.hub.calls;

import io.fleetbus.hub.audit.AuditGate;
import io.fleetbus.hub.authz.Access;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.hub.consent.Approval;
import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.routing.RoutingBus;
import io.fleetbus.hub.routing.RoutingService;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.CallStages;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.LocalServices;
import io.fleetbus.shared.catalog.Tiers;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.ControlOrder;
import io.fleetbus.shared.msg.NodeControl;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of a call from the moment the hub accepts it to its end: its id and Idempotency-Key, its record (what
 * {@code GET /api/v1/calls/{id}} reads, shared with the fleet's other hubs), carrying it out (routing, or the hub's own
 * tools), its audit entry and {@code call.finished} event — a finished record always has its audit entry — and the
 * outcomes nobody heard ({@link OutcomeRecovery}). Serves {@link CallService}.
 * Confined to the event loop of the verticle that starts it: the approval verticle, which every call passes, so
 * keeping a call's record costs no bus hop on the call path (approval → routing → node).
 */
public final class CallLedger implements CallService {
  private static final Logger LOG = LoggerFactory.getLogger(CallLedger.class);
  /**
   * A tier-1 call (reads only) shares its running record with the other hubs only once it has run this long; one that
   * ends sooner — nearly all of them — shares just its finished record: one map write (and backup, and event on every
   * hub) instead of two (issue 17). What the shared running record of a short read gave: "running" to a GET on another
   * hub during its first moments (nobody has its id yet but a streaming caller, who asks its own hub), and, if its hub
   * dies, a record stuck at "running" (nodes journal tiers 2-3 only: a hub taking a read over cannot learn how it ended).
   * A longer read is shared as before. Tiers 2-3 share at once: their takeover after a hub dies needs the record.
   */
  static final long SHARE_READS_RUNNING_AFTER_MS = 200;

  private final Vertx vertx;
  private final ToolCatalog catalog;
  private final FleetState fleet;
  private final RoutingService routing;
  private final CallAuditor auditor;
  private final IdempotencyKeys idempotency;
  private final String hubId;
  private Context ctx;
  private CallRecords records;
  private OutcomeRecovery recovery;
  private Function<String, Approval> approvals;
  /** Calls this hub is carrying out now: their answer is awaited here (the sweeper leaves them alone). */
  private final java.util.Set<String> carrying = new java.util.HashSet<>();
  /** Withdraws a pending call's approval (the approval step owns approvals): the cancel's answer. */
  private BiFunction<CallRecord, String, Future<JsonObject>> withdraw;

  /** @param fleet the state shared with the fleet's other hubs; null: this hub shares nothing */
  public CallLedger(Vertx vertx, ToolCatalog catalog, FleetState fleet) {
    this.vertx = vertx;
    this.catalog = catalog;
    this.fleet = fleet;
    this.routing = RoutingBus.client(vertx);
    this.auditor = new CallAuditor(vertx);
    this.idempotency = new IdempotencyKeys(fleet);
    this.hubId = fleet == null ? "local" : fleet.localMemberId();
  }

  /**
   * Starts keeping calls on {@code ctx} (the caller's event loop) and follows the other hubs' records.
   *
   * @param approvals the approval of an approval id as this hub knows it (who decided a call; an approved call to
   *                  carry out again), null when unknown
   * @param withdraw  withdraws a pending call's approval for {@code by}
   */
  public void start(Context ctx, Function<String, Approval> approvals,
                    BiFunction<CallRecord, String, Future<JsonObject>> withdraw) {
    this.ctx = ctx;
    this.withdraw = withdraw;
    this.approvals = approvals;
    records = fleet == null ? new CallRecords(ctx, null, null, 0, null) : new CallRecords(ctx,
      fleet.map(FleetState.CALLS, FleetState.DAY_MS), fleet.map(FleetState.LARGE_CALLS, FleetState.DAY_MS),
      io.fleetbus.shared.cluster.ClusterLauncher.SMALL_CALL_RECORD_CHARS,
      fleet.map(FleetState.OPEN_CALLS, FleetState.DAY_MS));
    records.follow();
    recovery = new OutcomeRecovery(vertx, records, approvals, new CallTruth(vertx), auditor, fleet, hubId, this::carry);
    RecordSweeper sweeper = new RecordSweeper(ctx, records, fleet == null ? null : fleet.map(FleetState.CALLS,
      FleetState.DAY_MS), fleet == null ? null : fleet.map(FleetState.OPEN_CALLS, FleetState.DAY_MS), hubId,
      m -> fleet != null && fleet.isMember(m), carrying);
    recovery.claimWith(sweeper::claim);
    sweeper.start(recovery, RecordSweeper.EVERY_MS);
    if (fleet != null) {
      fleet.onHubLeft(ctx, recovery::hubLeft);
      vertx.eventBus().<JsonObject>localConsumer(Addresses.HUB_NODE_BACK,
        msg -> recovery.nodeBack(msg.body().getString("nodeId")));
    }
  }

  /** The tool's tier (an unknown tool counts as tier 3). */
  public int tierOf(ToolCall call) {
    return catalog.find(call.tool()).map(ToolSpec::tier).orElse(3);
  }

  /**
   * A new call: its id must be unused, and a retry with the same Idempotency-Key gets the first call's outcome (or its
   * pending approval) instead of running again; otherwise {@code accept} decides what happens to it.
   */
  public Future<ToolResult> admit(ToolCall call, Supplier<Future<ToolResult>> accept) {
    if (records.taken(call.callId())) {
      return Future.failedFuture(FailureCode.CONFLICT.exception("call id " + call.callId() + " was already used"));
    }
    if (call.idempotencyKey() == null) {
      return accept.get();
    }
    return idempotency.claim(ctx, call).compose(first -> {
      if (first == null) {
        return accept.get();
      }
      LOG.info("idempotent retry answered by the first call [call: {}]", first);
      return idempotency.firstOutcome(records, first, call.timeoutMs() + 5000);
    });
  }

  /** Gives the call's Idempotency-Key back: the call was never accepted (it could not park). */
  public void release(ToolCall call) {
    if (call.idempotencyKey() != null) {
      idempotency.release(ctx, call);
    }
  }

  /** A call about to park for approval: its id is taken at once, so it cannot park twice while it is summarised. */
  public CallRecord parking(ToolCall call, String approvalId, long at) {
    CallRecord pending = CallRecord.pending(call, tierOf(call), approvalId, at);
    records.parking(pending);
    return pending;
  }

  /** Its approval is stored: the pending call is known to every hub. */
  public void parked(CallRecord pending) {
    records.put(pending);
  }

  /** Its approval could not be stored: the call never existed. */
  public void forget(String callId) {
    records.forget(callId);
  }

  /** Pending on another hub: known here too, so any hub answers for it. */
  public void pendingElsewhere(Approval a) {
    ToolCall call = a.call();
    if (!records.taken(call.callId())) {
      records.keep(CallRecord.pending(call, tierOf(call), a.approvalId(), a.requestedAt()));
    }
  }

  /** Approvals from before a restart: their calls answer queries again; a decided one without its audit entry gets it. */
  public void restored(List<Approval> stored) {
    stored.forEach(a -> records.keep(CallRecord.restored(a, tierOf(a.call()))));
    auditor.restored(stored, this::tierOf);
  }

  /** A call refused before it ran, by {@code by} ({@code policy}, or {@code node <id>}): audited before it is answered. */
  public Future<Void> refused(ToolCall call, int tier, FailureCode code, String why, String by) {
    return auditor.refused(call, tier, code, why, by);
  }

  /**
   * Carries a call out now — at once for tiers 1-2, once {@code approved} for tier 3 — and answers with how it ended
   * once that is recorded and audited.
   */
  public Future<ToolResult> run(ToolCall call, Approval approved) {
    CallRecord rec = records.get(call.callId());
    CallRecord running = (rec != null ? rec : approved == null
      ? CallRecord.started(call, tierOf(call), null, System.currentTimeMillis(), null)
      : CallRecord.started(call, tierOf(call), approved.approvalId(), approved.requestedAt(), null)).running(hubId);
    if (running.tier() <= 1) {
      records.putSoon(running, SHARE_READS_RUNNING_AFTER_MS);
    } else {
      records.put(running);
    }
    return carry(call);
  }

  /** Routes the call (hub-side tools to the hub's tool verticle) and records how it ended. */
  private Future<ToolResult> carry(ToolCall call) {
    long sentAt = System.nanoTime();
    boolean onHub = catalog.find(call.tool()).map(ToolSpec::runsOnHub).orElse(false);
    // fail closed: an approved call (or one taken over) is not sent while its end could not be audited
    io.fleetbus.shared.bus.FleetException noAudit = AuditGate.refusal(vertx, "call " + call.callId());
    // a node's answer as the caller may see it (Access: a job follows its launcher's call), before it is recorded
    approvedUntil(call);
    Future<ToolResult> answered = noAudit != null ? Future.failedFuture(noAudit)
      : onHub ? LocalServices.ask(vertx, Addresses.HUB_TOOLS, call, call.timeoutMs() + 5000)
      : JobCancelCheck.admit(call, routing::route).compose(routing::route)
        .map(r -> Access.nodeAnswer(new Caller(call.principal(), call.roles()), call.tool(), r));
    carrying.add(call.callId());
    return answered.transform(ar -> {
      carrying.remove(call.callId());
      io.fleetbus.hub.routing.ApprovedUntil.done(vertx, call.callId());
      CallStages.mark(call.callId(), CallStages.Stage.LEDGER_RECEIVED);
      if (ar.failed() && noAudit == null && recovery.undelivered(call, ar.cause())) {
        return Future.failedFuture(ar.cause());
      }
      return finish(call, ar.succeeded() ? ar.result()
          : ToolResult.error(call.callId(), call.nodeId(), FailureCode.of(ar.cause()), ar.cause().getMessage(), 0),
          (System.nanoTime() - sentAt) / 1_000_000)
        .compose(audited -> ar.succeeded() ? Future.succeededFuture(ar.result()) : Future.failedFuture(ar.cause()));
    });
  }

  /** An approved call is delivered only while its approval is valid (signed so: the node checks it too). */
  private void approvedUntil(ToolCall call) {
    CallRecord rec = records.get(call.callId());
    Approval approval = rec == null || rec.approvalId() == null ? null : approvals.apply(rec.approvalId());
    if (approval != null && Approval.APPROVED.equals(approval.status())) {
      io.fleetbus.hub.routing.ApprovedUntil.set(vertx, call.callId(), approval.expiresAt());
    }
  }

  /** Ends a call that never ran (denied, expired, withdrawn). */
  public Future<Void> finish(ToolCall call, ToolResult result) {
    return finish(call, result, -1);
  }

  /**
   * Audits how the call ended, then records it (waiters on any hub hear it) and announces it. Fails when the audit
   * could not be written (the record is kept all the same). The record is kept here before the answer leaves, so this
   * hub answers for the call at once; its write to the fleet's map and the event, which nobody waits for, go in a task
   * right behind the answer instead of before it (issue 17): whatever the answer lets a caller do next on this hub
   * queues behind that task, other hubs heard of the record only asynchronously before too.
   *
   * @param latencyMs time from routing to the answer as this hub saw it; -1 when the call never ran
   */
  private Future<Void> finish(ToolCall call, ToolResult result, long latencyMs) {
    CallRecord rec = records.get(call.callId());
    if (rec == null) {
      rec = CallRecord.started(call, tierOf(call), null, System.currentTimeMillis(), hubId);
    }
    CallRecord done = rec.finished(result);
    return auditor.finished(call, done, done.approvalId() == null ? null : approvals.apply(done.approvalId()))
      .andThen(audited -> {
        CallStages.mark(call.callId(), CallStages.Stage.AUDITED);
        records.keepOwn(done);
        // two tasks deep: the answer's delivery to the API is queued on this loop as this completes, so the share
        // and the event run after it (one task deep they would run before it: Vert.x queues every delivery)
        ctx.runOnContext(v -> ctx.runOnContext(w -> {
          records.share(done);
          vertx.eventBus().publish(Addresses.EVENTS, CallEvents.finished(done, latencyMs));
        }));
      });
  }

  @Override
  public Future<CallRecord> record(String callId, long waitMs) {
    return recovery.record(callId, waitMs);
  }

  @Override
  public Future<JsonArray> ended() {
    return Future.succeededFuture(auditor.recent());
  }

  @Override
  public Future<JsonObject> cancel(String callId, String by, List<String> roles) {
    return records.find(callId).compose(rec -> {
      if (rec == null) {
        return Future.failedFuture(FailureCode.NOT_FOUND.exception("no call " + callId + " is known to the fleet's hubs"));
      } else if (!rec.principal().equals(by) && !Tiers.mayDecideApprovals(roles)) {
        return Future.failedFuture(FailureCode.FORBIDDEN.exception("only the caller (" + rec.principal() + "), an"
          + " approver or an admin may cancel this call"));
      } else if (rec.isFinished()) {
        return Future.failedFuture(FailureCode.CONFLICT.exception("call " + rec.callId() + " already finished ("
          + rec.status() + ")"));
      } else if (CallRecord.PENDING.equals(rec.status())) {
        return withdraw.apply(rec, by);
      }
      return NodeControl.client(vertx).order(ControlOrder.cancel(rec.nodeId(), rec.callId(), by))
        .map(reply -> reply.put("ran", true))
        .recover(err -> Future.failedFuture(FailureCode.of(err).exception("could not cancel on node " + rec.nodeId()
          + ": " + err.getMessage())));
    });
  }
}
