package io.fleetbus.hub.calls;

import io.fleetbus.hub.consent.Approval;
import io.fleetbus.hub.audit.AuditBus;
import io.fleetbus.hub.audit.AuditEntry;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns how a call ended (and who decided it) into an audit entry. Each answers once the entry is committed
 * (with its group-commit batch): whoever answers the call answers after that, so nothing answered goes unrecorded.
 */
public final class CallAuditor {
  private static final Logger LOG = LoggerFactory.getLogger(CallAuditor.class);
  private static final int MAX_RECENT = 100_000;
  private final Vertx vertx;
  /** Calls whose end this hub recorded lately: the audit check makes sure each has its entry. Event loop only. */
  private final RecentCallIds recent = new RecentCallIds(MAX_RECENT);

  public CallAuditor(Vertx vertx) {
    this.vertx = vertx;
  }

  /** The calls whose end this hub recorded since it started (the latest {@value #MAX_RECENT}). */
  public io.vertx.core.json.JsonArray recent() {
    return new io.vertx.core.json.JsonArray(recent.toList());
  }

  public Future<Void> finished(ToolCall call, CallRecord done, Approval approval) {
    recent.add(call.callId());
    ToolResult r = done.result();
    AuditEntry.Builder entry = of(call, done.tier()).call(call.callId(), done.approvalId())
      .ended(done.outcomeUnknown() ? "unknown" : outcome(r), r == null ? null : r.errorCode(), r == null ? 0 : r.durationMs());
    if (done.finishedAt() != 0) {
      entry.at(done.finishedAt());
    }
    if (approval == null) {
      entry.decided("auto", null, null);
    } else {
      entry.decided(approval.status(), approval.decidedBy(), approval.reason());
    }
    return entry.build().record(vertx).recover(err -> {
        LOG.error("call finished but not audited [call: {}, reason: {}]", call.callId(), err.getMessage());
        return Future.failedFuture(FailureCode.TOOL_FAILED.exception("call " + call.callId() + " ended (" + done.status()
          + ") but its audit record could not be written: " + err.getMessage() + "; its outcome: GET /api/v1/calls/"
          + call.callId()));
      });
  }

  /** How a call whose outcome was unknown really ended, as its node told a hub later. */
  public Future<Void> resolved(CallRecord rec) {
    recent.add(rec.callId());
    return AuditEntry.by(rec.principal()).on(rec.nodeId(), rec.tool(), rec.tier()).args(new io.vertx.core.json.JsonObject())
      .call(rec.callId(), rec.approvalId()).decided("resolved", "node " + rec.nodeId(), rec.resolution())
      .ended(outcome(rec.result()), rec.result().errorCode(), rec.result().durationMs()).build().record(vertx);
  }

  /** An entry of {@code call}: who asked what of which node, with which arguments. */
  private static AuditEntry.Builder of(ToolCall call, int tier) {
    return AuditEntry.by(call.principal()).on(call.nodeId(), call.tool(), tier).args(call.args());
  }

  /** The audit's outcome of a result: {@code ok}, {@code cancelled} (stopped or withdrawn: no error code) or {@code error}. */
  static String outcome(ToolResult r) {
    if (r != null && (r.isOk() || r.isCancelled())) {
      return r.status();
    }
    return "error";
  }

  /**
   * A call denied, expired or withdrawn just before the hub stopped may have its decision stored but not its audit
   * entry (the answer waits for both, the decision comes first): such an entry is written at start, so the restarted
   * hub finds no hole. (With several hubs the entry may also be in the audit of the hub that decided.)
   */
  public void restored(java.util.List<Approval> stored, java.util.function.ToIntFunction<ToolCall> tierOf) {
    java.util.Map<String, Approval> ended = new java.util.HashMap<>();
    stored.stream().filter(a -> !a.isPending() && !Approval.APPROVED.equals(a.status()))
      .forEach(a -> ended.put(a.call().callId(), a));
    if (ended.isEmpty()) {
      return;
    }
    AuditBus.client(vertx).missing(java.util.List.copyOf(ended.keySet()))
      .onSuccess(missing -> missing.forEach(id -> {
        Approval a = ended.get((String) id);
        LOG.warn("decided call had no audit entry: recorded now [call: {}, decision: {}]", id, a.status());
        finished(a.call(), CallRecord.restored(a, tierOf.applyAsInt(a.call())), a);
      }))
      .onFailure(err -> LOG.error("restored approvals not checked against the audit [reason: {}]", err.getMessage()));
  }

  public Future<Void> refused(ToolCall call, int tier, FailureCode code, String why) {
    return refused(call, tier, code, why, "policy");
  }

  /** @param by who refused: {@code policy} (the hub's rules) or {@code node <id>} (its dry check) */
  public Future<Void> refused(ToolCall call, int tier, FailureCode code, String why, String by) {
    return of(call, tier).call(call.callId(), null).refused(by, why, code.code).build().record(vertx)
      .recover(err -> Future.failedFuture(FailureCode.TOOL_FAILED.exception(why + " (and the refusal could not be"
        + " audited: " + err.getMessage() + ")")));
  }
}
