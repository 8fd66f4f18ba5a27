package io.fleetbus.hub.approval;

import io.fleetbus.hub.consent.Approval;
import io.vertx.core.json.JsonObject;

/** The approval events on {@code fleet.events}: what dashboards, metrics and the requester's frontend need. */
final class ApprovalEvents {
  static final String REQUESTED = "approval.requested";
  static final String DECIDED = "approval.decided";

  private ApprovalEvents() {
  }

  static JsonObject requested(Approval a) {
    return new JsonObject().put("type", REQUESTED).put("approvalId", a.approvalId()).put("callId", a.call().callId())
      .put("nodeId", a.call().nodeId()).put("tool", a.call().tool()).put("requester", a.call().principal())
      .put("expiresAt", a.expiresAt());
  }

  /** Approved, denied, withdrawn or expired ({@code decidedBy} null for an expiry). */
  static JsonObject decided(Approval a) {
    return new JsonObject().put("type", DECIDED).put("approvalId", a.approvalId()).put("callId", a.call().callId())
      .put("status", a.status()).put("decidedBy", a.decidedBy()).put("requester", a.call().principal());
  }
}
