package io.fleetbus.hub.enrollment;

import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import java.util.HashMap;
import java.util.Map;

/**
 * The node credentials in force on this hub (their hashes), each change told at once, hub-locally, to the keyrings
 * that check the nodes' proofs ({@link NodeKeyring}: router, monitor, API). Used on the enrollment verticle's event
 * loop only.
 */
final class CredentialsInForce {
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);

  private final Map<String, NodeCredential> credentials = new HashMap<>();
  private final Vertx vertx;

  CredentialsInForce(Vertx vertx) {
    this.vertx = vertx;
  }

  /** The node's credential, or null (not enrolled, revoked, or no id). */
  NodeCredential get(String nodeId) {
    return nodeId == null ? null : credentials.get(nodeId);
  }

  boolean has(String nodeId) {
    return get(nodeId) != null;
  }

  /** A credential enrolled, rotated or loaded: in force here and in every keyring. */
  void put(NodeCredential c) {
    credentials.put(c.nodeId(), c);
    vertx.eventBus().publish(Addresses.HUB_NODE_KEYS, c, LOCAL);
  }

  /** A revoked node: its proofs verify nowhere on this hub from now on. */
  void revoke(String nodeId) {
    credentials.remove(nodeId);
    vertx.eventBus().publish(Addresses.HUB_NODE_KEYS, NodeCredential.revoked(nodeId), LOCAL);
  }
}
