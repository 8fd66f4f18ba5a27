package io.fleetbus.hub.approval;

import io.fleetbus.hub.audit.AuditGate;
import io.fleetbus.hub.calls.CallBus;
import io.fleetbus.hub.calls.CallLedger;
import io.fleetbus.hub.calls.CallRecord;
import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.consent.Approval;
import io.fleetbus.hub.consent.ConfirmPolicy;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.hub.routing.RoutingBus;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.Tiers;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The approval step of the request path ({@link ApprovalService} on {@link ApprovalBus}): every call passes here.
 * Applies tier and role policy: tiers 1-2 are carried out at once, tier 3 parks as a pending approval
 * ({@link ApprovalRequests}) until a person with the approver role decides, the requester withdraws it, or it expires.
 * The requester may not approve their own call unless the conf allows it. With several hubs, approvals are shared
 * ({@link ApprovalBook}): any hub lists and decides any approval, a decision is a compare-and-set so exactly one hub
 * carries it out, and losing a hub loses no pending approval.
 * A call's own state — its id, Idempotency-Key, record, end, audit and recovery — belongs to hub.calls'
 * {@link CallLedger}, which runs on this verticle's event loop (every call passes here, so keeping it costs no bus
 * hop) and serves {@link io.fleetbus.hub.calls.CallService} from here.
 */
public final class ApprovalVerticle extends VerticleBase implements ApprovalService {
  private static final Logger LOG = LoggerFactory.getLogger(ApprovalVerticle.class);
  private static final int MAX_RESTORED_DECIDED = 1000;

  private final ToolCatalog catalog;
  private final long approvalTtlMs;
  private final ApprovalStore store;
  private final ApprovalSummaries summaries;
  private final boolean allowSelfApproval;
  private final ConfirmPolicy confirm;
  private final FleetState fleet;
  private ApprovalBook approvals;
  private ApprovalRequests requests;
  private CallLedger calls;
  private NodeArbiter arbiter;

  public ApprovalVerticle(ToolCatalog catalog, long approvalTtlMs, ApprovalStore store, ApprovalSummaries summaries,
                          boolean allowSelfApproval) {
    this(catalog, approvalTtlMs, store, summaries, allowSelfApproval, ConfirmPolicy.SECOND_PERSON_ONLY, null);
  }

  /**
   * @param confirm                     who confirms a tier-3 call: the requester too (through MCP elicitation; still
   *                                    recorded, still bound to the exact args) or only a second person
   * @param fleet                       the state shared with the fleet's other hubs; null: this hub shares nothing
   */
  public ApprovalVerticle(ToolCatalog catalog, long approvalTtlMs, ApprovalStore store, ApprovalSummaries summaries,
                          boolean allowSelfApproval, ConfirmPolicy confirm, FleetState fleet) {
    this.fleet = fleet;
    this.confirm = confirm;
    this.catalog = catalog;
    this.approvalTtlMs = approvalTtlMs;
    this.store = store;
    this.summaries = summaries;
    this.allowSelfApproval = allowSelfApproval;
  }

  @Override
  public Future<?> start() {
    approvals = new ApprovalBook(context, store,
      fleet == null ? null : fleet.map(FleetState.APPROVALS, approvalTtlMs + FleetState.DAY_MS));
    calls = new CallLedger(vertx, catalog, fleet);
    calls.start(context, approvals::get, this::withdraw);
    arbiter = new NodeArbiter(vertx, RoutingBus.client(vertx), fleet == null ? "local" : fleet.localMemberId(), approvals);
    requests = new ApprovalRequests(vertx, approvalTtlMs, summaries, approvals, calls, RoutingBus.client(vertx),
      this::confirmFor, this::expireOnTime);
    return approvals.load(MAX_RESTORED_DECIDED).compose(stored -> {
      restore(stored);
      calls.restored(stored);
      return approvals.join(stored, this::foreignPending);
    }).compose(v -> Future.all(ApprovalBus.serve(vertx, this), CallBus.serve(vertx, calls)));
  }

  /** A pending approval another hub made: its call is known here, and this hub expires it on time too. */
  private void foreignPending(Approval a) {
    calls.pendingElsewhere(a);
    expireOnTime(a);
  }

  /** Approvals from before a restart: pending ones wait (and expire) again. */
  private void restore(List<Approval> stored) {
    List<Approval> pending = stored.stream().filter(Approval::isPending).toList();
    pending.forEach(this::expireOnTime);
    if (!stored.isEmpty()) {
      LOG.info("approvals restored [pending: {}, decided: {}]", pending.size(), stored.size() - pending.size());
    }
  }

  private void expireOnTime(Approval a) {
    vertx.setTimer(Math.max(1, a.expiresAt() - System.currentTimeMillis()), t -> expire(a.approvalId()));
  }

  @Override
  public Future<ToolResult> submit(ToolCall call) {
    ToolSpec spec = catalog.find(call.tool()).orElse(null);
    if (spec == null) {
      return Future.failedFuture(FailureCode.NOT_FOUND.exception("unknown tool '" + call.tool() + "'"));
    }
    if (Tiers.maxToolTier(call.roles()) < spec.tier()) {
      String why = "tool " + spec.name() + " is tier " + spec.tier() + ": it needs the role '" + Tiers.roleFor(spec.tier())
        + "' or higher";
      // refused before it reaches a node: recorded all the same, before the caller hears it
      return calls.refused(call, spec.tier(), FailureCode.FORBIDDEN, why, "policy")
        .compose(audited -> Future.failedFuture(FailureCode.FORBIDDEN.exception(why)));
    }
    // fail closed: a call whose end could not be audited is not taken (nothing is parked, nothing runs)
    io.fleetbus.shared.bus.FleetException noAudit = AuditGate.refusal(vertx, "call " + call.callId() + " ("
      + call.tool() + ")");
    if (noAudit != null) {
      // its entry waits with the audit writer and is written once the audit is back: accounted for, not lost
      calls.refused(call, spec.tier(), noAudit.code(), noAudit.getMessage(), "policy");
      return Future.failedFuture(noAudit);
    }
    return calls.admit(call, () -> accept(call, spec));
  }

  /**
   * A call to carry out: tier 3 parks for a person — unless it can never run (planned first, answered at once) or is
   * a dry run that changes nothing — tiers 1-2 run now.
   */
  private Future<ToolResult> accept(ToolCall call, ToolSpec spec) {
    if (spec.tier() >= 3 && !changesNothing(spec, call)) {
      return requests.park(call, spec)
        .map(a -> ToolResult.pending(call.callId(), call.nodeId(), a.approvalId()))
        .onFailure(err -> calls.release(call));
    }
    return calls.run(call, null);
  }

  /** Who confirms this call: by its tool and the labels of its node (a selector's labels for a fan-out). */
  private Future<String> confirmFor(ToolCall call) {
    if (call.nodeId() == null) {
      JsonObject selector = call.selector() == null ? new JsonObject() : call.selector();
      return Future.succeededFuture(confirm.forCall(call.tool(), selector.getJsonObject("labels", new JsonObject())));
    }
    return RegistryBus.client(vertx).lookup(call.nodeId())
      .map(node -> confirm.forCall(call.tool(), node.labels()))
      // an unknown node's call never runs anyway; four eyes where nothing says otherwise
      .otherwise(err -> confirm.forCall(call.tool(), new JsonObject()));
  }

  /**
   * A write asked as a dry run ({@code dry_run: true} on a tool whose schema has it: write_file, edit_file, multi_edit)
   * answers the diff and writes nothing, so nobody needs to approve it; the node still applies its tier and scope.
   */
  static boolean changesNothing(ToolSpec spec, ToolCall call) {
    JsonObject properties = spec.inputSchema() == null ? null : spec.inputSchema().getJsonObject("properties");
    return properties != null && properties.getJsonObject("dry_run") != null && call.args() != null
      && Boolean.TRUE.equals(call.args().getValue("dry_run"));
  }

  @Override
  public Future<JsonArray> list(String status) {
    return approvals.list().map(all -> {
      JsonArray list = new JsonArray();
      all.stream().filter(a -> status == null || status.equals(a.status())).forEach(a -> list.add(a.toJson()));
      return list;
    });
  }

  @Override
  public Future<JsonObject> decide(Decision d) {
    io.fleetbus.shared.bus.FleetException noAudit = AuditGate.refusal(vertx, "the decision on approval " + d.approvalId()
      + " (it stays pending)");
    if (noAudit != null) {
      return Future.failedFuture(noAudit);
    }
    String decider = d.decider();
    Function<Approval, Approval> change = a -> {
      boolean selfConfirm = ConfirmPolicy.USER.equals(a.confirm()) && d.viaElicitation()
        && decider != null && decider.equals(a.call().principal());
      if (!selfConfirm && !Tiers.mayDecideApprovals(d.roles())) {
        throw FailureCode.FORBIDDEN.exception("deciding approvals needs the role 'approver' (or 'admin')");
      }
      requirePending(a);
      if (d.approve() && System.currentTimeMillis() >= a.expiresAt()) {
        throw FailureCode.APPROVAL_EXPIRED.exception("approval " + a.approvalId() + " expired at "
          + java.time.Instant.ofEpochMilli(a.expiresAt()) + "; it can no longer be approved");
      }
      if (d.approve() && !allowSelfApproval && !selfConfirm && decider != null && decider.equals(a.call().principal())) {
        throw FailureCode.FORBIDDEN.exception("you asked for this call yourself: another approver must approve it"
          + " (approvals.allowSelfApproval is off)");
      }
      return a.decide(d.approve() ? Approval.APPROVED : Approval.DENIED, decider, d.reason());
    };
    // issue 34: checked here first (403, 409 at once), then the target node's journal arbitrates (503: nothing stored)
    return known(d.approvalId()).compose(a -> {
      if (a == null) {
        return approvals.transition(d.approvalId(), change);
      }
      change.apply(a);
      return d.approve() ? arbiter.reachable(a).compose(v -> approvals.transition(d.approvalId(), change))
        : arbiter.refuse(a, Approval.DENIED, decider).compose(v -> approvals.transition(d.approvalId(),
          NodeArbiter.journaled(change, decider)));
    }).compose(this::carryOut);
  }

  /** The approval as this hub knows it, or as the fleet's map has it (null when nobody knows it). */
  private Future<Approval> known(String approvalId) {
    Approval a = approvals.get(approvalId);
    return a != null ? Future.succeededFuture(a) : approvals.list().map(all -> approvals.get(approvalId));
  }

  private static void requirePending(Approval a) {
    if (!a.isPending()) {
      throw FailureCode.CONFLICT.exception("approval " + a.approvalId() + " is already " + a.status()
        + (a.decidedBy() == null ? "" : " (by " + a.decidedBy() + ")"));
    }
  }

  /** Announces the decision; an approved call runs now (its end recorded as usual), a denied one ends now. */
  private Future<JsonObject> carryOut(Approval decided) {
    ToolCall call = decided.call();
    LOG.info("approval decided [approval: {}, call: {}, decision: {}, by: {}]", decided.approvalId(), call.callId(),
      decided.status(), decided.decidedBy());
    vertx.eventBus().publish(Addresses.EVENTS, ApprovalEvents.decided(decided));
    if (Approval.APPROVED.equals(decided.status())) {
      calls.run(call, decided);
      // told once the node journaled the delivered call (a parallel ask: the call gets no extra hop)
      return arbiter.delivered(decided);
    }
    return calls.finish(call, ToolResult.error(call.callId(), call.nodeId(), FailureCode.FORBIDDEN,
        "denied by " + decided.decidedBy() + (decided.reason() == null ? "" : ": " + decided.reason()), 0))
      .transform(audited -> Future.succeededFuture(decided.toJson()));
  }

  /** Withdraws a pending call before anyone decided (a cancel by its caller, an approver or an admin). */
  private Future<JsonObject> withdraw(CallRecord rec, String by) {
    Approval known = approvals.get(rec.approvalId());
    Future<Void> confirmed = Future.succeededFuture();
    if (known != null) {
      requirePending(known);
      confirmed = arbiter.refuse(known, Approval.CANCELLED, by);
    }
    return confirmed.compose(v -> approvals.transition(rec.approvalId(), NodeArbiter.journaled(a -> {
      requirePending(a);
      return a.decide(Approval.CANCELLED, by, "withdrawn before a decision");
    }, by))).transform(ar -> {
      if (ar.failed()) {
        // not found: parked a moment ago, its approval is still being summarised and stored
        return Future.failedFuture(FailureCode.of(ar.cause()) != FailureCode.NOT_FOUND ? ar.cause()
          : FailureCode.CONFLICT.exception("call " + rec.callId() + " is being parked for approval right now; cancel"
            + " it again in a moment"));
      }
      Approval withdrawn = ar.result();
      vertx.eventBus().publish(Addresses.EVENTS, ApprovalEvents.decided(withdrawn));
      return calls.finish(withdrawn.call(), CallRecord.withdrawn(withdrawn.call(), by))
        .transform(audited -> Future.succeededFuture(new JsonObject().put("callId", rec.callId()).put("cancelled", true)
          .put("ran", false)));
    });
  }

  /** Every hub that knows a pending approval expires it on time; the first to do so wins, the others see it. */
  private void expire(String approvalId) {
    Approval known = approvals.get(approvalId);
    if (known == null || !known.isPending()) {
      return;
    }
    // issue 34: an expiry is a decision too — journaled on the node first, or not made while it cannot be reached
    arbiter.refuse(known, Approval.EXPIRED, null).compose(v -> approvals.transition(approvalId, a -> {
      requirePending(a);
      return a.decide(Approval.EXPIRED, null, "nobody decided within " + approvalTtlMs / 1000 + " s");
    })).onSuccess(expired -> {
      calls.finish(expired.call(), ToolResult.error(expired.call().callId(), expired.call().nodeId(),
        FailureCode.APPROVAL_EXPIRED, "approval " + approvalId + " expired: nobody decided within " + approvalTtlMs / 1000
          + " s", 0));
      vertx.eventBus().publish(Addresses.EVENTS, ApprovalEvents.decided(expired));
    }).onFailure(err -> {
      boolean unreachable = FailureCode.of(err) == FailureCode.NO_ELIGIBLE_NODE;
      LOG.info("approval not expired here [approval: {}, reason: {}]", approvalId, err.getMessage());
      if (unreachable) {
        vertx.setTimer(NodeArbiter.EXPIRY_RETRY_MS, t -> expire(approvalId)); // nothing approves it meanwhile
      }
    });
  }
}
