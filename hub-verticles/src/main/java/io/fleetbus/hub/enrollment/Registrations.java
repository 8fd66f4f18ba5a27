package io.fleetbus.hub.enrollment;

import io.vertx.core.Future;

/**
 * The one thing enrollment needs of the node registry: forget a revoked node's registration, answering whether the
 * registry knew the node. Handed in by the hub's wiring ({@code RegistryBus.client(vertx)::forget}), so this package
 * does not import the registry, which imports it to admit hellos.
 */
@FunctionalInterface
public interface Registrations {
  Future<Boolean> forget(String nodeId);
}
