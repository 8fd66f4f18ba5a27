package io.fleetbus.hub.calls;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * {@link CallService} on the hub's own bus: one local address per operation under {@code fleet.hub.calls}. A
 * {@link CallRecord} travels by reference ({@code LocalCodec}, registered once per Vert.x by the hub's assembly).
 */
public final class CallBus {
  private CallBus() {
  }

  /** CallService as seen from any verticle (or thread) of this hub: each method asks its operation's local address. */
  public static CallService client(Vertx vertx) {
    return LocalServices.client(vertx, CallService.class, Addresses.HUB_CALLS);
  }

  /** Serves every operation of {@code calls} (from the verticle that owns its state, in its start). */
  public static Future<Void> serve(Vertx vertx, CallService calls) {
    return LocalServices.bind(vertx, CallService.class, calls, Addresses.HUB_CALLS);
  }
}
