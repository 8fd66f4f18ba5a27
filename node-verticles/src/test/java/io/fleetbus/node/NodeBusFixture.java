package io.fleetbus.node;

import io.fleetbus.node.state.NodeBus;
import io.vertx.core.Vertx;

/** Lets tests in other packages attach a {@link NodeBus} to a local Vert.x and play the hub's acceptance. */
public final class NodeBusFixture {
  private NodeBusFixture() {
  }

  /** A bus on {@code vertx} that no hub has accepted yet: events are held back. */
  public static NodeBus attached(String nodeId, Vertx vertx) {
    NodeBus bus = new NodeBus(nodeId);
    bus.attach(vertx);
    return bus;
  }

  /** A bus on {@code vertx} that a hub has accepted: events go out. */
  public static NodeBus registered(String nodeId, Vertx vertx) {
    NodeBus bus = attached(nodeId, vertx);
    bus.hubRegistered();
    return bus;
  }

  public static void hubAccepted(NodeBus bus) {
    bus.hubRegistered();
  }
}
