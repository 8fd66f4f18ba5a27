package io.fleetbus.hub.health;

import io.fleetbus.shared.fault.FaultSwitches;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.function.BooleanSupplier;

/**
 * What {@code /ready} looks at besides the registry's database: this hub's cluster membership and whether
 * it finished deploying its verticles. A null cluster manager reads as "not joined". {@code switches}: the fault
 * switches this hub runs with, shown as the check {@code faultSwitches} (never a reason to be unready).
 */
public record HubReadiness(HazelcastClusterManager cluster, BooleanSupplier deployed, FaultSwitches switches) {
}
