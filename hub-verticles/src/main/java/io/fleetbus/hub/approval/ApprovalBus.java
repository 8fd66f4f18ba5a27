package io.fleetbus.hub.approval;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * {@link ApprovalService} on the hub's own bus: a call enters at {@code fleet.hub.approve}; listing and deciding have
 * one address each under {@code fleet.hub.approvals}. A {@link Decision} travels by reference.
 */
public final class ApprovalBus {
  private ApprovalBus() {
  }

  /** ApprovalService as seen from any verticle (or thread) of this hub: each method asks its operation's local address. */
  public static ApprovalService client(Vertx vertx) {
    return LocalServices.client(vertx, ApprovalService.class, Addresses.HUB_APPROVALS);
  }

  /** Serves every operation of {@code approvals} (from the verticle that owns its state, in its start). */
  public static Future<Void> serve(Vertx vertx, ApprovalService approvals) {
    return LocalServices.bind(vertx, ApprovalService.class, approvals, Addresses.HUB_APPROVALS);
  }
}
