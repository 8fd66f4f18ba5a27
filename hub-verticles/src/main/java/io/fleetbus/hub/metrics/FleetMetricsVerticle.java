package io.fleetbus.hub.metrics;

import io.fleetbus.hub.approval.ApprovalBus;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;

/**
 * Feeds {@link FleetMeters} from this hub's {@code fleet.events}, after seeding it with the registry's nodes and
 * the pending approvals (deploy it after the registry and approval verticles).
 */
public final class FleetMetricsVerticle extends VerticleBase {
  private final FleetMeters meters;

  public FleetMetricsVerticle(FleetMeters meters) {
    this.meters = meters;
  }

  @Override
  public Future<?> start() {
    // this hub's events only (another hub's, relayed here for its listeners, are marked), so none counts twice
    var bus = vertx.eventBus();
    return bus.<JsonObject>localConsumer(Addresses.EVENTS, msg -> {
      if (!msg.headers().contains(Addresses.RELAYED_HEADER)) {
        meters.onEvent(msg.body());
      }
    }).completion()
      .compose(v -> RegistryBus.client(vertx).list())
      .onSuccess(list -> meters.seedNodes(list.getJsonArray("nodes")))
      // approvals restored from before a restart are pending without a fresh event
      .compose(v -> ApprovalBus.client(vertx).list("pending"))
      .onSuccess(meters::seedApprovals);
  }
}
