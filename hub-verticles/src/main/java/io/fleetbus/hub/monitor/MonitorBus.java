package io.fleetbus.hub.monitor;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * The two ends of {@link MonitorService} on the hub's local bus: one address per operation under
 * {@link Addresses#HUB_MONITOR} (e.g. {@code fleet.hub.monitor.member-left}), failures keeping their code. The monitor
 * verticle serves; the registry, the node-config verticle and the hub's membership listener ask through {@link #client}.
 */
public final class MonitorBus {
  private MonitorBus() {
  }

  /** MonitorService as seen from any verticle (or thread) of this hub: each method asks its operation's local address. */
  public static MonitorService client(Vertx vertx) {
    return LocalServices.client(vertx, MonitorService.class, Addresses.HUB_MONITOR);
  }

  /** Serves every operation of {@code monitor} (from the verticle that owns its state, in its start). */
  public static Future<Void> serve(Vertx vertx, MonitorService monitor) {
    return LocalServices.bind(vertx, MonitorService.class, monitor, Addresses.HUB_MONITOR);
  }
}
