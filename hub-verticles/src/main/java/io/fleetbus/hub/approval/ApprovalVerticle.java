package io.fleetbus.hub.approval;

import io.fleetbus.hub.calls.CallAuditor;
import io.fleetbus.hub.calls.CallEvents;
import io.fleetbus.hub.calls.CallRecord;
import io.fleetbus.hub.calls.CallRecords;
import io.fleetbus.hub.calls.CallTruth;
import io.fleetbus.hub.calls.IdempotencyKeys;
import io.fleetbus.hub.calls.OutcomeRecovery;
import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.hub.routing.RouterVerticle;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetReplies;
import io.fleetbus.shared.catalog.Tiers;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every call passes here. Applies tier and role policy: tiers 1-2 go straight on to routing, tier 3
 * parks as a pending approval until a person with the approver role decides (or it expires). Also
 * keeps the call records that {@code GET /api/v1/calls/{id}} reads. Approvals are stored before anyone
 * is told about them (a hub restart loses none), the requester may not approve their own call unless
 * the conf allows it, and every call's end is handed to the audit trail.
 * With several hubs, approvals and call records are shared (Hazelcast maps, one backup): any hub lists
 * and decides any approval, a decision is a compare-and-set so exactly one hub carries it out, and
 * losing a hub loses no pending approval.
 */
public final class ApprovalVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(ApprovalVerticle.class);
  private static final int MAX_RESTORED_DECIDED = 1000;

  private final ToolCatalog catalog;
  private final long approvalTtlMs;
  private final ApprovalStore store;
  private final ApprovalSummaries summaries;
  private final boolean allowSelfApproval;
  private final ConfirmPolicy confirm;
  private final FleetState fleet;
  private CallAuditor auditor;
  private ApprovalBook approvals;
  private CallRecords calls;
  private IdempotencyKeys idempotency;
  private OutcomeRecovery recovery;
  private String hubId;

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
    auditor = new CallAuditor(vertx);
    idempotency = new IdempotencyKeys(fleet);
    hubId = fleet == null ? "local" : fleet.localMemberId();
    approvals = new ApprovalBook(context, store,
      fleet == null ? null : fleet.map(FleetState.APPROVALS, approvalTtlMs + FleetState.DAY_MS));
    calls = new CallRecords(context, fleet == null ? null : fleet.map(FleetState.CALLS, FleetState.DAY_MS));
    calls.follow();
    recovery = new OutcomeRecovery(calls, approvals::get, new CallTruth(vertx), auditor, fleet, hubId, this::route);
    if (fleet != null) {
      fleet.onHubLeft(context, recovery::hubLeft);
    }
    var bus = vertx.eventBus();
    return approvals.load(MAX_RESTORED_DECIDED).compose(stored -> {
      restore(stored);
      auditor.restored(stored, this::tierOf);
      return approvals.join(stored, this::foreignPending);
    }).compose(v -> Future.all(
      bus.<ToolCall>localConsumer(Addresses.HUB_APPROVE, this::onCall).completion(),
      bus.<JsonObject>localConsumer(Addresses.HUB_APPROVALS, this::onApprovals).completion()));
  }

  /** A pending approval another hub made: its call is known here, and this hub expires it on time too. */
  private void foreignPending(Approval a) {
    ToolCall call = a.call();
    if (!calls.taken(call.callId())) {
      calls.keep(new CallRecord(call.callId(), call.principal(), call.nodeId(), call.tool(), tierOf(call),
        CallRecord.PENDING, a.approvalId(), null, a.requestedAt(), 0));
    }
    vertx.setTimer(Math.max(1, a.expiresAt() - System.currentTimeMillis()), t -> expire(a.approvalId()));
  }

  private int tierOf(ToolCall call) {
    return catalog.find(call.tool()).map(ToolSpec::tier).orElse(3);
  }

  /** Approvals from before a restart: pending ones wait (and expire) again; decided ones answer call queries. */
  private void restore(List<Approval> stored) {
    int pending = 0;
    for (Approval a : stored) {
      calls.keep(CallRecord.restored(a, tierOf(a.call())));
      if (a.isPending()) {
        pending++;
        vertx.setTimer(Math.max(1, a.expiresAt() - System.currentTimeMillis()), t -> expire(a.approvalId()));
      }
    }
    if (!stored.isEmpty()) {
      LOG.info("approvals restored [pending: {}, decided: {}]", pending, stored.size() - pending);
    }
  }

  private void onCall(Message<ToolCall> msg) {
    ToolCall call = msg.body();
    ToolSpec spec = catalog.find(call.tool()).orElse(null);
    if (spec == null) {
      msg.fail(FailureCode.NOT_FOUND.code, "unknown tool '" + call.tool() + "'");
      return;
    }
    if (Tiers.maxToolTier(call.roles()) < spec.tier()) {
      String why = "tool " + spec.name() + " is tier " + spec.tier() + ": it needs the role '" + Tiers.roleFor(spec.tier())
        + "' or higher";
      // refused before it reaches a node: recorded all the same, before the caller hears it
      auditor.refused(call, spec.tier(), FailureCode.FORBIDDEN, why).onComplete(audited -> msg.fail(
        audited.succeeded() ? FailureCode.FORBIDDEN.code : FailureCode.TOOL_FAILED.code,
        audited.succeeded() ? why : audited.cause().getMessage()));
      return;
    }
    if (calls.taken(call.callId())) {
      msg.fail(FailureCode.CONFLICT.code, "call id " + call.callId() + " was already used");
      return;
    }
    if (call.idempotencyKey() == null) {
      accept(msg, call, spec);
      return;
    }
    idempotency.claim(context, call).onComplete(claimed -> {
      if (claimed.failed()) {
        FleetReplies.fail(msg, claimed.cause());
      } else if (claimed.result() == null) {
        accept(msg, call, spec);
      } else {
        LOG.info("idempotent retry answered by the first call [call: {}]", claimed.result());
        idempotency.firstOutcome(calls, claimed.result(), call.timeoutMs() + 5000)
          .onSuccess(msg::reply)
          .onFailure(err -> FleetReplies.fail(msg, err));
      }
    });
  }

  /**
   * A call to carry out: tier 3 parks for a person — unless it can never run (checked first, answered at once) or is
   * a dry run that changes nothing — tiers 1-2 are routed now.
   */
  private void accept(Message<ToolCall> msg, ToolCall call, ToolSpec spec) {
    if (spec.tier() >= 3 && !changesNothing(spec, call)) {
      checkBeforeParking(call, spec).compose(fixed -> park(fixed, spec))
        .onSuccess(a -> msg.reply(ToolResult.pending(call.callId(), call.nodeId(), a.approvalId())))
        .onFailure(err -> {
          if (call.idempotencyKey() != null) {
            idempotency.release(context, call);
          }
          FleetReplies.fail(msg, err);
        });
      return;
    }
    calls.put(new CallRecord(call.callId(), call.principal(), call.nodeId(), spec.name(), spec.tier(),
      CallRecord.RUNNING, null, null, System.currentTimeMillis(), 0, hubId, null));
    route(call).onComplete(ar -> {
      if (ar.succeeded()) {
        msg.reply(ar.result());
      } else {
        FleetReplies.fail(msg, ar.cause());
      }
    });
  }

  private Future<Approval> park(ToolCall call, ToolSpec spec) {
    long now = System.currentTimeMillis();
    String approvalId = UUID.randomUUID().toString();
    // the call id is taken at once: the same call cannot be parked twice while its summary is prepared
    CallRecord pending = new CallRecord(call.callId(), call.principal(), call.nodeId(), spec.name(), spec.tier(),
      CallRecord.PENDING, approvalId, null, now, 0);
    calls.parking(pending);
    return Future.all(summaries.summarize(call, spec), confirmFor(call))
      .map(both -> new Approval(approvalId, call, both.resultAt(0), now, now + approvalTtlMs, Approval.PENDING, null, null,
        0, both.resultAt(1)))
      // stored and shared before anyone hears of it
      .compose(approvals::open)
      .onSuccess(a -> {
        calls.put(pending);
        announce(a);
      })
      .recover(err -> {
        calls.forget(call.callId());
        LOG.error("approval not stored [call: {}, reason: {}]", call.callId(), err.getMessage());
        return Future.failedFuture(FailureCode.TOOL_FAILED.exception("the approval could not be stored, so the call"
          + " will not run: " + err.getMessage()));
      });
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

  /**
   * Nobody is asked to approve a call that can never run: the router checks it first (the node's tier and platform,
   * and the node's own dry check of the arguments: allowlist, argument rules, path scope). A refusal is audited and
   * answered at once. A person approves a call on named machines: a selector is resolved now, and the approved call
   * runs on exactly those nodes, never on one that joins later. A named node that cannot be asked now (unknown,
   * offline, no answer) does not stop the call from parking: it is checked again when it runs.
   */
  private Future<ToolCall> checkBeforeParking(ToolCall call, ToolSpec spec) {
    if (spec.runsOnHub()) {
      return Future.succeededFuture(call);
    }
    return vertx.eventBus().<Object>request(Addresses.HUB_ROUTE, call,
        new DeliveryOptions().setLocalOnly(true).addHeader(RouterVerticle.ACTION, RouterVerticle.CHECK)
          .setSendTimeout(30_000))
      .transform(ar -> {
        if (ar.failed() || !(ar.result().body() instanceof JsonObject checked)) {
          Throwable why = ar.failed() ? ar.cause()
            : FailureCode.TOOL_FAILED.exception("the router answered the check with no verdict");
          if (call.nodeId() == null) {
            return Future.failedFuture(why);
          }
          LOG.warn("call not checked before parking [call: {}, node: {}, reason: {}]", call.callId(), call.nodeId(),
            why.getMessage());
          return Future.succeededFuture(call);
        }
        JsonObject refusal = checked.getJsonObject("refusal");
        if (refusal != null) {
          FailureCode code = FailureCode.of(refusal.getInteger("code"));
          String why = refusal.getString("message");
          LOG.info("call refused before parking [call: {}, tool: {}, code: {}, by: {}]", call.callId(), call.tool(),
            code.code, refusal.getString("by"));
          return auditor.refused(call, spec.tier(), code, why, refusal.getString("by"))
            .compose(audited -> Future.failedFuture(code.exception(why)));
        }
        JsonArray nodes = checked.getJsonArray("nodes");
        return Future.succeededFuture(nodes == null ? call : call.withSelector(call.selector().copy().put("nodes", nodes)));
      });
  }

  /** A stored pending approval: listed, announced, and expired on time. */
  private void announce(Approval a) {
    ToolCall call = a.call();
    vertx.setTimer(Math.max(1, a.expiresAt() - System.currentTimeMillis()), t -> expire(a.approvalId()));
    LOG.info("approval requested [approval: {}, call: {}, node: {}, tool: {}, requester: {}]", a.approvalId(),
      call.callId(), call.nodeId(), call.tool(), call.principal());
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.requested")
      .put("approvalId", a.approvalId()).put("callId", call.callId()).put("nodeId", call.nodeId())
      .put("tool", call.tool()).put("requester", call.principal()).put("expiresAt", a.expiresAt()));
  }

  /**
   * Routes the call (hub-side tools to the hub's tool verticle) and records how it ended; the outcome is handed
   * back only once it is in the audit.
   */
  private Future<ToolResult> route(ToolCall call) {
    long sentAt = System.nanoTime();
    boolean onHub = catalog.find(call.tool()).map(ToolSpec::runsOnHub).orElse(false);
    return vertx.eventBus().<ToolResult>request(onHub ? Addresses.HUB_TOOLS : Addresses.HUB_ROUTE, call,
        new DeliveryOptions().setLocalOnly(true).setSendTimeout(call.timeoutMs() + 5000))
      .map(Message::body)
      .transform(ar -> finish(call, ar.succeeded() ? ar.result()
          : ToolResult.error(call.callId(), call.nodeId(), FailureCode.of(ar.cause()), ar.cause().getMessage(), 0),
          (System.nanoTime() - sentAt) / 1_000_000)
        .compose(audited -> ar.succeeded() ? Future.succeededFuture(ar.result()) : Future.failedFuture(ar.cause())));
  }

  private Future<Void> finish(ToolCall call, ToolResult result) {
    return finish(call, result, -1);
  }

  /**
   * Audits how the call ended, then records it (waiters on any hub hear it) and announces it: a finished record
   * always has its audit entry. Fails when the audit could not be written (the record is kept all the same).
   *
   * @param latencyMs time from routing to the answer as this hub saw it; -1 when the call never ran
   */
  private Future<Void> finish(ToolCall call, ToolResult result, long latencyMs) {
    String callId = call.callId();
    CallRecord rec = calls.get(callId);
    if (rec == null) {
      rec = new CallRecord(callId, call.principal(), call.nodeId(), call.tool(), tierOf(call), CallRecord.RUNNING,
        null, null, System.currentTimeMillis(), 0, hubId, null);
    }
    CallRecord done = rec.finished(result);
    return auditor.finished(call, done, done.approvalId() == null ? null : approvals.get(done.approvalId()))
      .andThen(audited -> {
        calls.put(done);
        vertx.eventBus().publish(Addresses.EVENTS, CallEvents.finished(done, latencyMs));
      });
  }

  private void onApprovals(Message<JsonObject> msg) {
    JsonObject body = msg.body();
    String action = msg.headers().get("action");
    switch (action == null ? "" : action) {
      case "list" -> approvals.list().onSuccess(all -> {
        String status = body.getString("status");
        JsonArray list = new JsonArray();
        all.stream().filter(a -> status == null || status.equals(a.status())).forEach(a -> list.add(a.toJson()));
        msg.reply(new JsonObject().put("approvals", list));
      });
      case "decide" -> decide(msg, body);
      case "cancel" -> cancel(msg, body);
      case "ended" -> msg.reply(new JsonObject().put("finishedCalls", auditor.recent()));
      case "call" -> recovery.record(body.getString("callId"), body.getLong("waitMs", 0L))
        .onSuccess(rec -> msg.reply(rec.toJson()))
        .onFailure(err -> FleetReplies.fail(msg, err));
      default -> msg.fail(FailureCode.BAD_REQUEST.code, "unknown approvals action " + action);
    }
  }

  private void decide(Message<JsonObject> msg, JsonObject body) {
    String decider = body.getString("decider");
    @SuppressWarnings("unchecked")
    List<String> roles = (List<String>) (List<?>) body.getJsonArray("roles", new JsonArray()).getList();
    boolean approve = "approve".equals(body.getString("decision"));
    approvals.transition(body.getString("approvalId"), a -> {
      boolean selfConfirm = ConfirmPolicy.USER.equals(a.confirm()) && "elicitation".equals(body.getString("via"))
        && decider != null && decider.equals(a.call().principal());
      if (!selfConfirm && !Tiers.mayDecideApprovals(roles)) {
        throw FailureCode.FORBIDDEN.exception("deciding approvals needs the role 'approver' (or 'admin')");
      }
      requirePending(a);
      if (approve && !allowSelfApproval && !selfConfirm && decider != null && decider.equals(a.call().principal())) {
        throw FailureCode.FORBIDDEN.exception("you asked for this call yourself: another approver must approve it"
          + " (approvals.allowSelfApproval is off)");
      }
      return a.decide(approve ? Approval.APPROVED : Approval.DENIED, decider, body.getString("reason"));
    })
      .onSuccess(decided -> carryOut(msg, decided, approve))
      .onFailure(err -> FleetReplies.fail(msg, err));
  }

  private static void requirePending(Approval a) {
    if (!a.isPending()) {
      throw FailureCode.CONFLICT.exception("approval " + a.approvalId() + " is already " + a.status()
        + (a.decidedBy() == null ? "" : " (by " + a.decidedBy() + ")"));
    }
  }

  private void carryOut(Message<JsonObject> msg, Approval decided, boolean approve) {
    String decider = decided.decidedBy();
    ToolCall call = decided.call();
    LOG.info("approval decided [approval: {}, call: {}, decision: {}, by: {}]", decided.approvalId(), call.callId(),
      decided.status(), decider);
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.decided")
      .put("approvalId", decided.approvalId()).put("callId", call.callId()).put("status", decided.status())
      .put("decidedBy", decider).put("requester", call.principal()));
    if (approve) {
      CallRecord rec = calls.get(call.callId());
      calls.put((rec != null ? rec : new CallRecord(call.callId(), call.principal(), call.nodeId(), call.tool(),
        tierOf(call), CallRecord.PENDING, decided.approvalId(), null, decided.requestedAt(), 0)).running(hubId));
      route(call);
      msg.reply(decided.toJson());
    } else {
      finish(call, ToolResult.error(call.callId(), call.nodeId(), FailureCode.FORBIDDEN,
        "denied by " + decider + (decided.reason() == null ? "" : ": " + decided.reason()), 0))
        .onComplete(audited -> msg.reply(decided.toJson()));
    }
  }

  /** Withdraws a pending call, or asks the node to stop a running one (its process tree is killed). */
  private void cancel(Message<JsonObject> msg, JsonObject body) {
    String by = body.getString("by");
    @SuppressWarnings("unchecked")
    List<String> roles = (List<String>) (List<?>) body.getJsonArray("roles", new JsonArray()).getList();
    calls.find(body.getString("callId")).onSuccess(rec -> {
      if (rec == null) {
        msg.fail(FailureCode.NOT_FOUND.code, "no call " + body.getString("callId") + " is known to the fleet's hubs");
      } else if (!rec.principal().equals(by) && !Tiers.mayDecideApprovals(roles)) {
        msg.fail(FailureCode.FORBIDDEN.code, "only the caller (" + rec.principal() + "), an approver or an admin may cancel this call");
      } else if (rec.isFinished()) {
        msg.fail(FailureCode.CONFLICT.code, "call " + rec.callId() + " already finished (" + rec.status() + ")");
      } else if (CallRecord.PENDING.equals(rec.status())) {
        withdraw(msg, rec, by);
      } else {
        vertx.eventBus().<JsonObject>request(Addresses.HUB_CONTROL, new JsonObject().put("nodeId", rec.nodeId())
              .put("type", Control.CANCEL).put("body", new JsonObject().put("callId", rec.callId()).put("by", by)),
            new DeliveryOptions().setLocalOnly(true).setSendTimeout(6000))
          .onSuccess(reply -> msg.reply(reply.body().put("ran", true)))
          .onFailure(err -> msg.fail(FailureCode.of(err).code, "could not cancel on node " + rec.nodeId() + ": " + err.getMessage()));
      }
    });
  }

  private void withdraw(Message<JsonObject> msg, CallRecord rec, String by) {
    approvals.transition(rec.approvalId(), a -> {
      requirePending(a);
      return a.decide(Approval.CANCELLED, by, "withdrawn before a decision");
    }).onSuccess(withdrawn -> {
      vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.decided")
        .put("approvalId", withdrawn.approvalId()).put("callId", rec.callId()).put("status", Approval.CANCELLED)
        .put("decidedBy", by).put("requester", rec.principal()));
      finish(withdrawn.call(), CallRecord.withdrawn(withdrawn.call(), by))
        .onComplete(audited -> msg.reply(new JsonObject().put("callId", rec.callId()).put("cancelled", true)
          .put("ran", false)));
    }).onFailure(err -> {
      if (FailureCode.of(err) == FailureCode.NOT_FOUND) {
        // parked a moment ago: its approval is still being summarised and stored
        msg.fail(FailureCode.CONFLICT.code, "call " + rec.callId() + " is being parked for approval right now; cancel"
          + " it again in a moment");
      } else {
        FleetReplies.fail(msg, err);
      }
    });
  }

  /** Every hub that knows a pending approval expires it on time; the first to do so wins, the others see it. */
  private void expire(String approvalId) {
    Approval known = approvals.get(approvalId);
    if (known == null || !known.isPending()) {
      return;
    }
    approvals.transition(approvalId, a -> {
      requirePending(a);
      return a.decide(Approval.EXPIRED, null, "nobody decided within " + approvalTtlMs / 1000 + " s");
    }).onSuccess(expired -> {
      finish(expired.call(), ToolResult.error(expired.call().callId(), expired.call().nodeId(),
        FailureCode.APPROVAL_EXPIRED, "approval " + approvalId + " expired: nobody decided within " + approvalTtlMs / 1000
          + " s", 0));
      vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.decided")
        .put("approvalId", approvalId).put("callId", expired.call().callId()).put("status", Approval.EXPIRED)
        .put("requester", expired.call().principal()));
    }).onFailure(err -> LOG.debug("approval not expired here [approval: {}, reason: {}]", approvalId, err.getMessage()));
  }
}
