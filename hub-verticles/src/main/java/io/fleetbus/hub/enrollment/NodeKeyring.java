package io.fleetbus.hub.enrollment;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;

/**
 * A verticle's own copy of the nodes' proof keys, kept current by the enrollment verticle's hub-local
 * publishes: checks that a heartbeat, result or goodbye was made by the node it names. Confined to the
 * event loop of the verticle that owns it; HMAC checks cost microseconds.
 */
public final class NodeKeyring {
  private final Map<String, NodeCredential> keys = new HashMap<>();

  /** Subscribes to key changes; complete when subscribed. */
  public Future<Void> follow(Vertx vertx) {
    return vertx.eventBus().<NodeCredential>localConsumer(Addresses.HUB_NODE_KEYS, msg -> apply(msg.body())).completion();
  }

  void apply(NodeCredential change) {
    if (change.isRevoked()) {
      keys.remove(change.nodeId());
    } else {
      keys.put(change.nodeId(), change);
    }
  }

  public boolean verify(String nodeId, String purpose, JsonObject message, String proof) {
    NodeCredential c = nodeId == null ? null : keys.get(nodeId);
    if (c == null || proof == null) {
      return false;
    }
    JsonObject content = NodeProofs.without(message, "proof");
    return NodeProofs.verify(c.current(), purpose, content, proof)
      || c.previous() != null && System.currentTimeMillis() < c.previousValidUntil()
      && NodeProofs.verify(c.previous(), purpose, content, proof);
  }
}
