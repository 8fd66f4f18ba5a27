package io.fleetbus.hub.enrollment;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * The two ends of {@link EnrollmentService} on the hub's local bus: one address per operation under
 * {@link Addresses#HUB_ENROLLMENT} (e.g. {@code fleet.hub.enrollment.create-token}), failures keeping their code. The
 * enrollment verticle serves; the registry (hellos) and the API (tokens, rekey, revoke) ask through {@link #client}
 * (within 30 s: a rekey waits for the node's answer). {@link HelloAdmission} carries a key, so it travels by reference
 * only: the bus's holder is local-only and fails loudly on the cluster.
 */
public final class EnrollmentBus {
  private EnrollmentBus() {
  }

  /** EnrollmentService as seen from any verticle (or thread) of this hub: each method asks its operation's local address. */
  public static EnrollmentService client(Vertx vertx) {
    return LocalServices.client(vertx, EnrollmentService.class, Addresses.HUB_ENROLLMENT);
  }

  /** Serves every operation of {@code enrollment} (from the verticle that owns its state, in its start). */
  public static Future<Void> serve(Vertx vertx, EnrollmentService enrollment) {
    return LocalServices.bind(vertx, EnrollmentService.class, enrollment, Addresses.HUB_ENROLLMENT);
  }
}
