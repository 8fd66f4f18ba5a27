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
 * keeps the recent call records that {@code GET /api/v1/calls/{id}} reads.
 */
public final class ApprovalVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(ApprovalVerticle.class);
  private static final int MAX_CALL_RECORDS = 10_000;

  private final ToolCatalog catalog;
  private final long approvalTtlMs;
  private final Map<String, Approval> approvals = new LinkedHashMap<>();
  private final Map<String, CallRecord> calls = new LinkedHashMap<>(1024, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, CallRecord> eldest) {
      return size() > MAX_CALL_RECORDS && eldest.getValue().isFinished();
    }
  };
  private final Map<String, List<Promise<CallRecord>>> waiters = new HashMap<>();

  public ApprovalVerticle(ToolCatalog catalog, long approvalTtlMs) {
    this.catalog = catalog;
    this.approvalTtlMs = approvalTtlMs;
  }

  @Override
  public Future<?> start() {
    var bus = vertx.eventBus();
    return Future.all(
      bus.<ToolCall>localConsumer(Addresses.HUB_APPROVE, this::onCall).completion(),
      bus.<JsonObject>localConsumer(Addresses.HUB_APPROVALS, this::onApprovals).completion());
  }

  private void onCall(Message<ToolCall> msg) {
    ToolCall call = msg.body();
    ToolSpec spec = catalog.find(call.tool()).orElse(null);
    if (spec == null) {
      msg.fail(FailureCode.NOT_FOUND.code, "unknown tool '" + call.tool() + "'");
      return;
    }
    if (Tiers.maxToolTier(call.roles()) < spec.tier()) {
      msg.fail(FailureCode.FORBIDDEN.code, "tool " + spec.name() + " is tier " + spec.tier() + ": it needs the role '"
        + Tiers.roleFor(spec.tier()) + "' or higher");
      return;
    }
    if (calls.containsKey(call.callId())) {
      msg.fail(FailureCode.CONFLICT.code, "call id " + call.callId() + " was already used");
      return;
    }
    if (spec.tier() >= 3) {
      fixTargets(call).onComplete(ar -> {
        if (ar.failed()) {
          msg.fail(FailureCode.of(ar.cause()).code, ar.cause().getMessage());
          return;
        }
        park(ar.result(), spec);
        msg.reply(ToolResult.pending(call.callId(), call.nodeId(), calls.get(call.callId()).approvalId()));
      });
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

  private void park(ToolCall call, ToolSpec spec) {
    long now = System.currentTimeMillis();
    Approval a = new Approval(UUID.randomUUID().toString(), call, summarize(call, spec), now, now + approvalTtlMs,
      Approval.PENDING, null, null, 0);
    approvals.put(a.approvalId(), a);
    calls.put(call.callId(), new CallRecord(call.callId(), call.principal(), call.nodeId(), spec.name(), spec.tier(),
      CallRecord.PENDING, a.approvalId(), null, now, 0));
    vertx.setTimer(approvalTtlMs, t -> expire(a.approvalId()));
    LOG.info("approval requested [approval: {}, call: {}, node: {}, tool: {}, requester: {}]", a.approvalId(),
      call.callId(), call.nodeId(), spec.name(), call.principal());
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.requested")
      .put("approvalId", a.approvalId()).put("callId", call.callId()).put("nodeId", call.nodeId())
      .put("tool", spec.name()).put("requester", call.principal()).put("expiresAt", a.expiresAt()));
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

  private static String targets(ToolCall call) {
    return call.nodeId() != null ? "node " + call.nodeId()
      : "nodes " + call.selector().getJsonArray("nodes", new JsonArray()).encode();
  }

  private static String summarize(ToolCall call, ToolSpec spec) {
    String what = switch (spec.name()) {
      case "run_command" -> "run `" + call.args().getString("command") + "`";
      default -> spec.name() + " " + call.args().encode();
    };
    return call.principal() + " asks to " + what + " on " + targets(call);
  }

  /** Routes the call (hub-side tools to the hub's tool verticle) and records how it ended. */
  private Future<ToolResult> route(ToolCall call) {
    long sentAt = System.nanoTime();
    boolean onHub = catalog.find(call.tool()).map(ToolSpec::runsOnHub).orElse(false);
    return vertx.eventBus().<ToolResult>request(onHub ? Addresses.HUB_TOOLS : Addresses.HUB_ROUTE, call,
        new DeliveryOptions().setLocalOnly(true).setSendTimeout(call.timeoutMs() + 5000))
      .map(Message::body)
      .onComplete(ar -> finish(call.callId(), ar.succeeded() ? ar.result()
        : ToolResult.error(call.callId(), call.nodeId(), FailureCode.of(ar.cause()), ar.cause().getMessage(), 0),
        (System.nanoTime() - sentAt) / 1_000_000));
  }

  private void finish(String callId, ToolResult result) {
    finish(callId, result, -1);
  }

  /** @param latencyMs time from routing to the answer as this hub saw it; -1 when the call never ran */
  private void finish(String callId, ToolResult result, long latencyMs) {
    CallRecord rec = calls.get(callId);
    if (rec == null) {
      return;
    }
    CallRecord done = rec.finished(result);
    calls.put(callId, done);
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
    if (!Tiers.mayDecideApprovals(roles)) {
      msg.fail(FailureCode.FORBIDDEN.code, "deciding approvals needs the role 'approver' (or 'admin')");
      return;
    }
    if (!Approval.PENDING.equals(a.status())) {
      msg.fail(FailureCode.CONFLICT.code, "approval " + a.approvalId() + " is already " + a.status()
        + (a.decidedBy() == null ? "" : " (by " + a.decidedBy() + ")"));
      return;
    }
    Approval decided = a.decide(approve ? Approval.APPROVED : Approval.DENIED, decider, body.getString("reason"));
    approvals.put(a.approvalId(), decided);
    LOG.info("approval decided [approval: {}, call: {}, decision: {}, by: {}]", a.approvalId(), a.call().callId(),
      decided.status(), decider);
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.decided")
      .put("approvalId", a.approvalId()).put("callId", a.call().callId()).put("status", decided.status())
      .put("decidedBy", decider));
    if (approve) {
      calls.computeIfPresent(a.call().callId(), (k, rec) -> rec.running());
      route(a.call());
    } else {
      finish(a.call().callId(), ToolResult.error(a.call().callId(), a.call().nodeId(), FailureCode.FORBIDDEN,
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
      approvals.put(a.approvalId(), a.decide(Approval.CANCELLED, by, "withdrawn before a decision"));
      vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.decided")
        .put("approvalId", a.approvalId()).put("callId", rec.callId()).put("status", Approval.CANCELLED).put("decidedBy", by));
      finish(rec.callId(), ToolResult.error(rec.callId(), rec.nodeId(), FailureCode.TOOL_FAILED,
        "cancelled: withdrawn by " + by + " before approval", 0));
      msg.reply(new JsonObject().put("callId", rec.callId()).put("cancelled", true).put("ran", false));
      return;
    }
    vertx.eventBus().<JsonObject>request(Addresses.nodeControl(rec.nodeId()),
        new Control(Control.CANCEL, new JsonObject().put("callId", rec.callId()).put("by", by)),
        new DeliveryOptions().setSendTimeout(5000))
      .onSuccess(reply -> msg.reply(reply.body().put("ran", true)))
      .onFailure(err -> msg.fail(FailureCode.of(err).code, "could not cancel on node " + rec.nodeId() + ": " + err.getMessage()));
  }

  private void expire(String approvalId) {
    Approval a = approvals.get(approvalId);
    if (a == null || !Approval.PENDING.equals(a.status())) {
      return;
    }
    approvals.put(approvalId, a.decide(Approval.EXPIRED, null, "nobody decided within " + approvalTtlMs / 1000 + " s"));
    finish(a.call().callId(), ToolResult.error(a.call().callId(), a.call().nodeId(), FailureCode.APPROVAL_EXPIRED,
      "approval " + approvalId + " expired: nobody decided within " + approvalTtlMs / 1000 + " s", 0));
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.decided")
      .put("approvalId", approvalId).put("callId", a.call().callId()).put("status", Approval.EXPIRED));
  }
}
