package io.fleetbus.hub.health;

import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.function.BooleanSupplier;

/**
 * What {@code /ready} looks at besides the registry's database: this hub's cluster membership and whether
 * it finished deploying its verticles. A null cluster manager reads as "not joined".
 */
public record HubReadiness(HazelcastClusterManager cluster, BooleanSupplier deployed) {
}
