package io.fleetbus.hub.approval;

import io.fleetbus.hub.audit.AuditEntry;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.Vertx;

/** Turns how a call ended (and who decided it) into an audit entry, sent without waiting. */
final class CallAuditor {
  private final Vertx vertx;

  CallAuditor(Vertx vertx) {
    this.vertx = vertx;
  }

  void finished(ToolCall call, CallRecord done, Approval approval) {
    boolean ok = done.result() != null && done.result().isOk();
    new AuditEntry(done.finishedAt() == 0 ? System.currentTimeMillis() : done.finishedAt(), call.principal(),
      call.nodeId(), call.tool(), done.tier(), call.args(), call.callId(), done.approvalId(),
      approval == null ? "auto" : approval.status(), approval == null ? null : approval.decidedBy(),
      approval == null ? null : approval.reason(), ok ? "ok" : done.outcomeUnknown() ? "unknown" : "error",
      ok || done.result() == null ? null : done.result().errorCode(),
      done.result() == null ? 0 : done.result().durationMs()).send(vertx);
  }

  /** How a call whose outcome was unknown really ended, as its node told a hub later. */
  void resolved(CallRecord rec) {
    boolean ok = rec.result() != null && rec.result().isOk();
    new AuditEntry(System.currentTimeMillis(), rec.principal(), rec.nodeId(), rec.tool(), rec.tier(),
      new io.vertx.core.json.JsonObject(), rec.callId(), rec.approvalId(), "resolved", "node " + rec.nodeId(),
      rec.resolution(), ok ? "ok" : "error", ok ? null : rec.result().errorCode(), rec.result().durationMs()).send(vertx);
  }

  void refused(ToolCall call, int tier, FailureCode code, String why) {
    new AuditEntry(System.currentTimeMillis(), call.principal(), call.nodeId(), call.tool(), tier, call.args(),
      call.callId(), null, "refused", "policy", why, "error", code.code, 0).send(vertx);
  }
}
