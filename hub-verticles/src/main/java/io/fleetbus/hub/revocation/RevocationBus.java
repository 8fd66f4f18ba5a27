package io.fleetbus.hub.revocation;

import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/** The two ends of {@link RevocationService} on the hub's local bus, one address per operation under {@link #SERVICE}. */
public final class RevocationBus {
  public static final String SERVICE = "fleet.hub.revocations";

  private RevocationBus() {
  }

  /** RevocationService as seen from any verticle (or thread) of this hub: each method asks its operation's local address. */
  public static RevocationService client(Vertx vertx) {
    return LocalServices.client(vertx, RevocationService.class, SERVICE);
  }

  /** Serves every operation of {@code revocations} (from the verticle that owns its state, in its start). */
  public static Future<Void> serve(Vertx vertx, RevocationService revocations) {
    return LocalServices.bind(vertx, RevocationService.class, revocations, SERVICE);
  }
}
