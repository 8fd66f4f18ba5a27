package io.fleetbus.node.state;

import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's link to whichever clustered event bus is current. {@code NodeSupervisor} replaces the
 * Vert.x instance when it rejoins a cluster, so work that outlives one instance (managed processes,
 * jobs) publishes through this link and never holds a Vertx of its own. Thread-safe.
 */
public final class NodeBus {
  private static final Logger LOG = LoggerFactory.getLogger(NodeBus.class);

  private final String nodeId;
  private final List<Runnable> onHubReachable = new CopyOnWriteArrayList<>();
  private volatile Vertx vertx;
  private volatile boolean registered;
  /** Adds the node's proof to an event (its credential's HMAC); identity until the node holds a credential. */
  private volatile java.util.function.UnaryOperator<JsonObject> prover = e -> e;

  public NodeBus(String nodeId) {
    this.nodeId = nodeId;
  }

  /** Events go out proved this way from now on (the hub drops unproven ones before any frontend sees them). */
  public void proveEventsWith(java.util.function.UnaryOperator<JsonObject> eventProver) {
    this.prover = eventProver;
  }

  public String nodeId() {
    return nodeId;
  }

  /** A cluster member is up: publish through it (a hub may not have accepted the node yet). */
  public void attach(Vertx current) {
    registered = false;
    vertx = current;
  }

  /** The member is going away: nothing is published until the next {@link #attach}. */
  public void detach() {
    registered = false;
    vertx = null;
  }

  /** A hub accepted the node's hello. Runs the listeners on the caller's thread: they must not block. */
  public void hubRegistered() {
    registered = true;
    for (Runnable listener : onHubReachable) {
      try {
        listener.run();
      } catch (RuntimeException e) {
        LOG.warn("hub-reachable listener failed [node: {}]", nodeId, e);
      }
    }
  }

  public boolean hubReachable() {
    return registered && vertx != null;
  }

  /** Runs {@code listener} (which must not block) each time a hub accepts this node. */
  public void onHubReachable(Runnable listener) {
    onHubReachable.add(listener);
  }

  /**
   * Publishes {@code event} on {@code fleet.events}, with this node's id and the time added, when a
   * hub has accepted the node; otherwise drops it (the node's log still has it).
   *
   * @return true when the event went out, so a caller that must deliver it can stop keeping it
   */
  public boolean publishEvent(JsonObject event) {
    Vertx current = vertx;
    if (current == null || !registered) {
      return false;
    }
    try {
      current.eventBus().publish(Addresses.EVENTS, prover.apply(event.copy().put("nodeId", nodeId)
        .put("at", System.currentTimeMillis())));
      return true;
    } catch (RuntimeException e) {
      // the instance closed under us (a rejoin is under way): the caller re-sends later if it must
      LOG.debug("event not published [node: {}, type: {}]", nodeId, event.getString("type"), e);
      return false;
    }
  }
}
