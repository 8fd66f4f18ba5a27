package io.fleetbus.hub.approval;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.Tiers;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every call passes here. Applies tier and role policy: tiers 1-2 go straight on to routing, tier 3
 * parks as a pending approval until a person with the approver role decides (or it expires). Also
 * keeps the recent call records that {@code GET /api/v1/calls/{id}} reads. Approvals are stored before
 * anyone is told about them (a hub restart loses none), the requester may not approve their own call
 * unless the conf allows it, and every call's end is handed to the audit trail.
 */
public final class ApprovalVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(ApprovalVerticle.class);
  private static final int MAX_CALL_RECORDS = 10_000;
  private static final int MAX_RESTORED_DECIDED = 1000;

  private final ToolCatalog catalog;
  private final long approvalTtlMs;
  private final ApprovalStore store;
  private final ApprovalSummaries summaries;
  private final boolean allowSelfApproval;
  private final boolean allowElicitationSelfConfirm;
  private CallAuditor auditor;
  private final Map<String, Approval> approvals = new LinkedHashMap<>();
  private final Map<String, CallRecord> calls = new LinkedHashMap<>(1024, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, CallRecord> eldest) {
      return size() > MAX_CALL_RECORDS && eldest.getValue().isFinished();
    }
  };
  private final Map<String, List<Promise<CallRecord>>> waiters = new HashMap<>();

  public ApprovalVerticle(ToolCatalog catalog, long approvalTtlMs, ApprovalStore store, ApprovalSummaries summaries,
                          boolean allowSelfApproval) {
    this(catalog, approvalTtlMs, store, summaries, allowSelfApproval, false);
  }

  /**
   * @param allowElicitationSelfConfirm the requester may confirm their own tier-3 call when an MCP client asks
   *                                    them through elicitation (still recorded, still bound to the exact args)
   */
  public ApprovalVerticle(ToolCatalog catalog, long approvalTtlMs, ApprovalStore store, ApprovalSummaries summaries,
                          boolean allowSelfApproval, boolean allowElicitationSelfConfirm) {
    this.allowElicitationSelfConfirm = allowElicitationSelfConfirm;
    this.catalog = catalog;
    this.approvalTtlMs = approvalTtlMs;
    this.store = store;
    this.summaries = summaries;
    this.allowSelfApproval = allowSelfApproval;
  }

  @Override
  public Future<?> start() {
    auditor = new CallAuditor(vertx);
    var bus = vertx.eventBus();
    return store.load(MAX_RESTORED_DECIDED).compose(stored -> {
      restore(stored);
      return Future.all(
        bus.<ToolCall>localConsumer(Addresses.HUB_APPROVE, this::onCall).completion(),
        bus.<JsonObject>localConsumer(Addresses.HUB_APPROVALS, this::onApprovals).completion());
    });
  }

  /** Approvals from before a restart: pending ones wait (and expire) again; decided ones answer call queries. */
  private void restore(List<Approval> stored) {
    int pending = 0;
    for (Approval a : stored) {
      ToolCall call = a.call();
      int tier = catalog.find(call.tool()).map(ToolSpec::tier).orElse(3);
      approvals.put(a.approvalId(), a);
      CallRecord rec = new CallRecord(call.callId(), call.principal(), call.nodeId(), call.tool(), tier, CallRecord.PENDING,
        a.approvalId(), null, a.requestedAt(), 0);
      if (Approval.PENDING.equals(a.status())) {
        pending++;
        calls.put(call.callId(), rec);
        vertx.setTimer(Math.max(1, a.expiresAt() - System.currentTimeMillis()), t -> expire(a.approvalId()));
      } else {
        calls.put(call.callId(), rec.finished(restoredOutcome(a)));
      }
    }
    if (!stored.isEmpty()) {
      LOG.info("approvals restored [pending: {}, decided: {}]", pending, stored.size() - pending);
    }
  }

  private static ToolResult restoredOutcome(Approval a) {
    ToolCall c = a.call();
    return switch (a.status()) {
      case Approval.DENIED -> ToolResult.error(c.callId(), c.nodeId(), FailureCode.FORBIDDEN,
        "denied by " + a.decidedBy() + (a.reason() == null ? "" : ": " + a.reason()), 0);
      case Approval.EXPIRED -> ToolResult.error(c.callId(), c.nodeId(), FailureCode.APPROVAL_EXPIRED,
        "approval " + a.approvalId() + " expired", 0);
      case Approval.CANCELLED -> ToolResult.error(c.callId(), c.nodeId(), FailureCode.TOOL_FAILED,
        "cancelled: withdrawn by " + a.decidedBy() + " before approval", 0);
      default -> ToolResult.error(c.callId(), c.nodeId(), FailureCode.TOOL_FAILED, "the hub restarted after this call was"
        + " approved; its result was not kept (GET /api/v1/audit?node=" + c.nodeId() + " has its outcome; the node runs"
        + " an approved call at most once)", 0);
    };
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
      auditor.refused(call, spec.tier(), FailureCode.FORBIDDEN, why);
      msg.fail(FailureCode.FORBIDDEN.code, why);
      return;
    }
    if (calls.containsKey(call.callId())) {
      msg.fail(FailureCode.CONFLICT.code, "call id " + call.callId() + " was already used");
      return;
    }
    if (spec.tier() >= 3) {
      fixTargets(call).compose(fixed -> park(fixed, spec))
        .onSuccess(a -> msg.reply(ToolResult.pending(call.callId(), call.nodeId(), a.approvalId())))
        .onFailure(err -> msg.fail(FailureCode.of(err).code, err.getMessage()));
      return;
    }
    calls.put(call.callId(), new CallRecord(call.callId(), call.principal(), call.nodeId(), spec.name(), spec.tier(),
      CallRecord.RUNNING, null, null, System.currentTimeMillis(), 0));
    route(call).onComplete(ar -> {
      if (ar.succeeded()) {
        msg.reply(ar.result());
      } else {
        msg.fail(FailureCode.of(ar.cause()).code, ar.cause().getMessage());
      }
    });
  }

  private Future<Approval> park(ToolCall call, ToolSpec spec) {
    long now = System.currentTimeMillis();
    String approvalId = UUID.randomUUID().toString();
    // the call id is taken at once: the same call cannot be parked twice while its summary is prepared
    calls.put(call.callId(), new CallRecord(call.callId(), call.principal(), call.nodeId(), spec.name(), spec.tier(),
      CallRecord.PENDING, approvalId, null, now, 0));
    return summaries.summarize(call, spec)
      .map(summary -> new Approval(approvalId, call, summary, now, now + approvalTtlMs, Approval.PENDING, null, null, 0))
      .compose(a -> store.save(a).map(a))
      .onSuccess(this::open)
      .recover(err -> {
        calls.remove(call.callId());
        LOG.error("approval not stored [call: {}, reason: {}]", call.callId(), err.getMessage());
        return Future.failedFuture(FailureCode.TOOL_FAILED.exception("the approval could not be stored, so the call"
          + " will not run: " + err.getMessage()));
      });
  }

  /**
   * A person approves a call on named machines: a selector is resolved now (the router's plan), and the
   * approved call runs on exactly those nodes, never on one that joins later.
   */
  private Future<ToolCall> fixTargets(ToolCall call) {
    if (call.nodeId() != null) {
      return Future.succeededFuture(call);
    }
    return vertx.eventBus().<JsonObject>request(Addresses.HUB_ROUTE, call,
        new DeliveryOptions().setLocalOnly(true).addHeader("action", "plan"))
      .map(m -> call.withSelector(call.selector().copy().put("nodes", m.body().getJsonArray("nodes"))));
  }

  /** A stored pending approval: listed, announced, and expired on time. */
  private void open(Approval a) {
    ToolCall call = a.call();
    approvals.put(a.approvalId(), a);
    vertx.setTimer(Math.max(1, a.expiresAt() - System.currentTimeMillis()), t -> expire(a.approvalId()));
    LOG.info("approval requested [approval: {}, call: {}, node: {}, tool: {}, requester: {}]", a.approvalId(),
      call.callId(), call.nodeId(), call.tool(), call.principal());
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.requested")
      .put("approvalId", a.approvalId()).put("callId", call.callId()).put("nodeId", call.nodeId())
      .put("tool", call.tool()).put("requester", call.principal()).put("expiresAt", a.expiresAt()));
  }

  /** Routes the call (hub-side tools to the hub's tool verticle) and records how it ended. */
  private Future<ToolResult> route(ToolCall call) {
    long sentAt = System.nanoTime();
    boolean onHub = catalog.find(call.tool()).map(ToolSpec::runsOnHub).orElse(false);
    return vertx.eventBus().<ToolResult>request(onHub ? Addresses.HUB_TOOLS : Addresses.HUB_ROUTE, call,
        new DeliveryOptions().setLocalOnly(true).setSendTimeout(call.timeoutMs() + 5000))
      .map(Message::body)
      .onComplete(ar -> finish(call, ar.succeeded() ? ar.result()
        : ToolResult.error(call.callId(), call.nodeId(), FailureCode.of(ar.cause()), ar.cause().getMessage(), 0),
        (System.nanoTime() - sentAt) / 1_000_000));
  }

  private void finish(ToolCall call, ToolResult result) {
    finish(call, result, -1);
  }

  /** @param latencyMs time from routing to the answer as this hub saw it; -1 when the call never ran */
  private void finish(ToolCall call, ToolResult result, long latencyMs) {
    String callId = call.callId();
    CallRecord rec = calls.get(callId);
    if (rec == null) {
      return;
    }
    CallRecord done = rec.finished(result);
    calls.put(callId, done);
    auditor.finished(call, done, done.approvalId() == null ? null : approvals.get(done.approvalId()));
    vertx.eventBus().publish(Addresses.EVENTS, CallEvents.finished(done, latencyMs));
    List<Promise<CallRecord>> w = waiters.remove(callId);
    if (w != null) {
      w.forEach(p -> p.tryComplete(done));
    }
  }

  private void onApprovals(Message<JsonObject> msg) {
    JsonObject body = msg.body();
    String action = msg.headers().get("action");
    switch (action == null ? "" : action) {
      case "list" -> {
        String status = body.getString("status");
        JsonArray list = new JsonArray();
        approvals.values().stream().filter(a -> status == null || status.equals(a.status()))
          .forEach(a -> list.add(a.toJson()));
        msg.reply(new JsonObject().put("approvals", list));
      }
      case "decide" -> decide(msg, body);
      case "cancel" -> cancel(msg, body);
      case "call" -> {
        CallRecord rec = calls.get(body.getString("callId"));
        long waitMs = body.getLong("waitMs", 0L);
        if (rec == null) {
          msg.fail(FailureCode.NOT_FOUND.code, "no call " + body.getString("callId") + " is known to this hub");
        } else if (rec.isFinished() || waitMs <= 0) {
          msg.reply(rec.toJson());
        } else {
          awaitCall(rec.callId(), waitMs).onSuccess(r -> msg.reply(r.toJson()));
        }
      }
      default -> msg.fail(FailureCode.BAD_REQUEST.code, "unknown approvals action " + action);
    }
  }

  private Future<CallRecord> awaitCall(String callId, long waitMs) {
    Promise<CallRecord> p = Promise.promise();
    waiters.computeIfAbsent(callId, k -> new ArrayList<>()).add(p);
    vertx.setTimer(waitMs, t -> {
      List<Promise<CallRecord>> w = waiters.get(callId);
      if (w != null) {
        w.remove(p);
        if (w.isEmpty()) {
          waiters.remove(callId);
        }
      }
      p.tryComplete(calls.get(callId));
    });
    return p.future();
  }

  private void decide(Message<JsonObject> msg, JsonObject body) {
    Approval a = approvals.get(body.getString("approvalId"));
    String decider = body.getString("decider");
    @SuppressWarnings("unchecked")
    List<String> roles = (List<String>) (List<?>) body.getJsonArray("roles", new JsonArray()).getList();
    boolean approve = "approve".equals(body.getString("decision"));
    if (a == null) {
      msg.fail(FailureCode.NOT_FOUND.code, "no approval " + body.getString("approvalId"));
      return;
    }
    boolean selfConfirm = allowElicitationSelfConfirm && "elicitation".equals(body.getString("via"))
      && decider != null && decider.equals(a.call().principal());
    if (!selfConfirm && !Tiers.mayDecideApprovals(roles)) {
      msg.fail(FailureCode.FORBIDDEN.code, "deciding approvals needs the role 'approver' (or 'admin')");
      return;
    }
    if (!Approval.PENDING.equals(a.status())) {
      msg.fail(FailureCode.CONFLICT.code, "approval " + a.approvalId() + " is already " + a.status()
        + (a.decidedBy() == null ? "" : " (by " + a.decidedBy() + ")"));
      return;
    }
    if (approve && !allowSelfApproval && !selfConfirm && decider != null && decider.equals(a.call().principal())) {
      msg.fail(FailureCode.FORBIDDEN.code, "you asked for this call yourself: another approver must approve it"
        + " (approvals.allowSelfApproval is off)");
      return;
    }
    Approval decided = a.decide(approve ? Approval.APPROVED : Approval.DENIED, decider, body.getString("reason"));
    // taken at once, so a second decision meanwhile gets 409; stored before anything runs
    approvals.put(a.approvalId(), decided);
    store.save(decided).onComplete(saved -> {
      if (saved.failed()) {
        approvals.put(a.approvalId(), a);
        msg.fail(FailureCode.TOOL_FAILED.code, "the decision could not be stored; the approval is still pending: "
          + saved.cause().getMessage());
      } else {
        carryOut(msg, a, decided, approve);
      }
    });
  }

  private void carryOut(Message<JsonObject> msg, Approval a, Approval decided, boolean approve) {
    String decider = decided.decidedBy();
    LOG.info("approval decided [approval: {}, call: {}, decision: {}, by: {}]", a.approvalId(), a.call().callId(),
      decided.status(), decider);
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.decided")
      .put("approvalId", a.approvalId()).put("callId", a.call().callId()).put("status", decided.status())
      .put("decidedBy", decider));
    if (approve) {
      calls.computeIfPresent(a.call().callId(), (k, rec) -> rec.running());
      route(a.call());
    } else {
      finish(a.call(), ToolResult.error(a.call().callId(), a.call().nodeId(), FailureCode.FORBIDDEN,
        "denied by " + decider + (decided.reason() == null ? "" : ": " + decided.reason()), 0));
    }
    msg.reply(decided.toJson());
  }

  /** Withdraws a pending call, or asks the node to stop a running one (its process tree is killed). */
  private void cancel(Message<JsonObject> msg, JsonObject body) {
    CallRecord rec = calls.get(body.getString("callId"));
    String by = body.getString("by");
    @SuppressWarnings("unchecked")
    List<String> roles = (List<String>) (List<?>) body.getJsonArray("roles", new JsonArray()).getList();
    if (rec == null) {
      msg.fail(FailureCode.NOT_FOUND.code, "no call " + body.getString("callId") + " is known to this hub");
      return;
    }
    if (!rec.principal().equals(by) && !Tiers.mayDecideApprovals(roles)) {
      msg.fail(FailureCode.FORBIDDEN.code, "only the caller (" + rec.principal() + "), an approver or an admin may cancel this call");
      return;
    }
    if (rec.isFinished()) {
      msg.fail(FailureCode.CONFLICT.code, "call " + rec.callId() + " already finished (" + rec.status() + ")");
      return;
    }
    if (CallRecord.PENDING.equals(rec.status())) {
      Approval a = approvals.get(rec.approvalId());
      if (a == null) {
        // parked a moment ago: its approval is still being summarised and stored
        msg.fail(FailureCode.CONFLICT.code, "call " + rec.callId() + " is being parked for approval right now; cancel"
          + " it again in a moment");
        return;
      }
      Approval withdrawn = a.decide(Approval.CANCELLED, by, "withdrawn before a decision");
      approvals.put(a.approvalId(), withdrawn);
      persist(withdrawn);
      vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.decided")
        .put("approvalId", a.approvalId()).put("callId", rec.callId()).put("status", Approval.CANCELLED).put("decidedBy", by));
      finish(a.call(), ToolResult.error(rec.callId(), rec.nodeId(), FailureCode.TOOL_FAILED,
        "cancelled: withdrawn by " + by + " before approval", 0));
      msg.reply(new JsonObject().put("callId", rec.callId()).put("cancelled", true).put("ran", false));
      return;
    }
    vertx.eventBus().<JsonObject>request(Addresses.HUB_CONTROL, new JsonObject().put("nodeId", rec.nodeId())
          .put("type", Control.CANCEL).put("body", new JsonObject().put("callId", rec.callId()).put("by", by)),
        new DeliveryOptions().setLocalOnly(true).setSendTimeout(6000))
      .onSuccess(reply -> msg.reply(reply.body().put("ran", true)))
      .onFailure(err -> msg.fail(FailureCode.of(err).code, "could not cancel on node " + rec.nodeId() + ": " + err.getMessage()));
  }

  private void expire(String approvalId) {
    Approval a = approvals.get(approvalId);
    if (a == null || !Approval.PENDING.equals(a.status())) {
      return;
    }
    Approval expired = a.decide(Approval.EXPIRED, null, "nobody decided within " + approvalTtlMs / 1000 + " s");
    approvals.put(approvalId, expired);
    persist(expired);
    finish(a.call(), ToolResult.error(a.call().callId(), a.call().nodeId(), FailureCode.APPROVAL_EXPIRED,
      "approval " + approvalId + " expired: nobody decided within " + approvalTtlMs / 1000 + " s", 0));
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.decided")
      .put("approvalId", approvalId).put("callId", a.call().callId()).put("status", Approval.EXPIRED));
  }

  private void persist(Approval a) {
    store.save(a).onFailure(err -> LOG.error("approval state not stored [approval: {}, status: {}, reason: {}]",
      a.approvalId(), a.status(), err.getMessage()));
  }
}
