package io.fleetbus.hub.registry;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * The two ends of {@link RegistryService} on the hub's local bus: one address per operation under
 * {@link Addresses#HUB_REGISTRY} (e.g. {@code fleet.hub.registry.lookup}), failures keeping their code. The registry
 * verticle serves; any other verticle asks through {@link #client}. Records pass by reference.
 */
public final class RegistryBus {
  /**
   * Header a hub's edge endpoint sets on a hello it relays from its own process (a local send): the node is an edge
   * node. Only what the node view shows depends on it (the node's calls go to the member its proven hello names).
   */
  public static final String EDGE_HELLO = "fb-edge";

  private RegistryBus() {
  }

  /** RegistryService as seen from any verticle (or thread) of this hub: each method asks its operation's local address. */
  public static RegistryService client(Vertx vertx) {
    return LocalServices.client(vertx, RegistryService.class, Addresses.HUB_REGISTRY);
  }

  /** As {@link #client(Vertx)}, each question failing after {@code timeoutMs}: for checks that must answer fast. */
  public static RegistryService client(Vertx vertx, long timeoutMs) {
    return LocalServices.client(vertx, RegistryService.class, Addresses.HUB_REGISTRY, timeoutMs);
  }

  /** Serves every operation of {@code registry} (from the verticle that owns its state, in its start). */
  public static Future<Void> serve(Vertx vertx, RegistryService registry) {
    return LocalServices.bind(vertx, RegistryService.class, registry, Addresses.HUB_REGISTRY);
  }
}
