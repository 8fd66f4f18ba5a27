package io.fleetbus.hub.audit;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * The bus ends of {@link AuditService}: one local address per operation under {@link Addresses#HUB_AUDIT}. An entry
 * travels by reference; {@code append} is sent (nobody waits), {@code record} answers from the thread that committed.
 */
public final class AuditBus {
  private AuditBus() {
  }

  /** AuditService as seen from any verticle (or thread) of this hub: each method asks its operation's local address. */
  public static AuditService client(Vertx vertx) {
    return LocalServices.client(vertx, AuditService.class, Addresses.HUB_AUDIT);
  }

  /** Serves every operation of {@code audit} (from the verticle that owns its state, in its start). */
  static Future<Void> serve(Vertx vertx, AuditService audit) {
    return LocalServices.bind(vertx, AuditService.class, audit, Addresses.HUB_AUDIT);
  }
}
