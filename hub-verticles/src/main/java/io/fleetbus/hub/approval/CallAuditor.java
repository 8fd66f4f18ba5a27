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
      approval == null ? null : approval.reason(), ok ? "ok" : "error",
      ok || done.result() == null ? null : done.result().errorCode(),
      done.result() == null ? 0 : done.result().durationMs()).send(vertx);
  }

  void refused(ToolCall call, int tier, FailureCode code, String why) {
    new AuditEntry(System.currentTimeMillis(), call.principal(), call.nodeId(), call.tool(), tier, call.args(),
      call.callId(), null, "refused", "policy", why, "error", code.code, 0).send(vertx);
  }
}
