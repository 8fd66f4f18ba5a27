package io.fleetbus.hub.routing;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * {@link RoutingService} on the hub's own bus: one local address per operation ({@code fleet.hub.route} for a call,
 * {@code .plan} for the check before parking, {@code fleet.hub.call-status}), so routing stays a verticle in the
 * request path and nothing outside this hub can answer for it. A {@link RoutePlan} travels by reference.
 */
public final class RoutingBus {
  private RoutingBus() {
  }

  /** RoutingService as seen from any verticle (or thread) of this hub: each method asks its operation's local address. */
  public static RoutingService client(Vertx vertx) {
    return LocalServices.client(vertx, RoutingService.class, Addresses.HUB_ROUTE);
  }

  /** Serves every operation of {@code routing} (from the verticle that owns its state, in its start). */
  public static Future<Void> serve(Vertx vertx, RoutingService routing) {
    return LocalServices.bind(vertx, RoutingService.class, routing, Addresses.HUB_ROUTE);
  }
}
