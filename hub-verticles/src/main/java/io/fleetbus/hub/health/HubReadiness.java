package io.fleetbus.hub.health;

import io.fleetbus.shared.fault.FaultSwitches;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import io.vertx.core.json.JsonObject;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What {@code /ready} looks at besides the registry's database: this hub's cluster membership and whether
 * it finished deploying its verticles. A null cluster manager reads as "not joined". {@code switches}: the fault
 * switches this hub runs with, shown as the check {@code faultSwitches} (never a reason to be unready). {@code split}:
 * the hubs lost without a goodbye ({@code SplitWatch#state}), shown in the {@code cluster} check; null: none watched.
 */
public record HubReadiness(HazelcastClusterManager cluster, BooleanSupplier deployed, FaultSwitches switches,
                           Supplier<JsonObject> split) {
  public HubReadiness(HazelcastClusterManager cluster, BooleanSupplier deployed, FaultSwitches switches) {
    this(cluster, deployed, switches, () -> null);
  }
}
