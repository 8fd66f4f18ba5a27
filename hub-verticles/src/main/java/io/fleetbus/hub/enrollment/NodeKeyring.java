package io.fleetbus.hub.enrollment;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * A verticle's own copy of the nodes' proof keys, kept current by the enrollment verticle's hub-local
 * publishes: checks that a heartbeat, result, goodbye or event was made by the node it names. Updated on the
 * event loop of the verticle that owns it, read from any thread (VerifiedFacts); HMAC checks cost microseconds.
 */
public final class NodeKeyring {
  private final Map<String, NodeCredential> keys = new java.util.concurrent.ConcurrentHashMap<>();
  private Future<Void> following;

  /**
   * Subscribes to key changes (once: a keyring shared by several verticles is followed by the first that asks);
   * complete when subscribed. Only changes published after that reach it: a keyring that must know every node
   * (the edge endpoint's, issue 35) is followed before the enrollment verticle loads the credentials.
   */
  public synchronized Future<Void> follow(Vertx vertx) {
    if (following == null) {
      following = vertx.eventBus().<NodeCredential>localConsumer(Addresses.HUB_NODE_KEYS, msg -> apply(msg.body()))
        .completion();
    }
    return following;
  }

  void apply(NodeCredential change) {
    if (change.isRevoked()) {
      keys.remove(change.nodeId());
    } else {
      keys.put(change.nodeId(), change);
    }
  }

  /** The key a call's arguments are sealed with for the node (its current credential's hash), or null. */
  public byte[] sealKey(String nodeId) {
    NodeCredential c = nodeId == null ? null : keys.get(nodeId);
    return c == null ? null : c.current();
  }

  /** The result with its data opened (current credential, else the previous one within its grace); as it is when plain. */
  public io.fleetbus.shared.msg.ToolResult open(String nodeId, io.fleetbus.shared.msg.ToolResult result) {
    NodeCredential c = nodeId == null ? null : keys.get(nodeId);
    if (c == null || !io.fleetbus.shared.trust.CallSeal.isSealed(result.data())) {
      return result;
    }
    return openWith(c, key -> io.fleetbus.shared.trust.CallSeal.openData(key, result));
  }

  /**
   * A stream chunk with its data opened (current credential, else the previous one within its grace);
   * IllegalArgumentException when the node is unknown or the chunk was not sealed by it for this call and place.
   */
  public io.fleetbus.shared.msg.StreamChunk openChunk(String nodeId, io.fleetbus.shared.msg.StreamChunk chunk) {
    NodeCredential c = nodeId == null ? null : keys.get(nodeId);
    if (c == null) {
      throw new IllegalArgumentException("no credential of node '" + nodeId + "' to open its output with");
    }
    return openWith(c, key -> io.fleetbus.shared.trust.CallSeal.openChunk(key, chunk));
  }

  /** Opens with the current key, else with the previous one while its grace lasts (a rekey in flight). */
  private static <T> T openWith(NodeCredential c, java.util.function.Function<byte[], T> open) {
    try {
      return open.apply(c.current());
    } catch (IllegalArgumentException e) {
      if (c.previous() != null && System.currentTimeMillis() < c.previousValidUntil()) {
        return open.apply(c.previous());
      }
      throw e;
    }
  }

  /** Whether this keyring holds a credential for the node (false: unknown, or revoked). */
  public boolean knows(String nodeId) {
    return nodeId != null && keys.containsKey(nodeId);
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
