package io.fleetbus.hub.registry;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.Future;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The registry's node records as its verticle last changed them, for the call path: the router reads a node here
 * instead of asking the registry verticle on every call (a bus request there and back, issue 37). Written only by the
 * registry's {@link NodeTable} on its event loop, with every change to a record (records are immutable); read from
 * any verticle of the hub. One per hub ({@code HubAssembly}).
 */
public final class NodeView {
  private final ConcurrentSkipListMap<String, NodeRecord> nodes = new ConcurrentSkipListMap<>();

  void put(NodeRecord rec) {
    nodes.put(rec.nodeId(), rec);
  }

  void remove(String nodeId) {
    nodes.remove(nodeId);
  }

  /** The node's live record; 400 without a node id (a caller's bug), 404 naming the node when nobody knows it. */
  public Future<NodeRecord> lookup(String nodeId) {
    NodeRecord rec = nodeId == null ? null : nodes.get(nodeId);
    return rec != null ? Future.succeededFuture(rec) : Future.failedFuture(unknown(nodeId));
  }

  /** A copy of every known node, online or not, in node-id order (as the registry's own table keeps them). */
  public List<NodeRecord> candidates() {
    return List.copyOf(nodes.values());
  }

  static RuntimeException unknown(String nodeId) {
    return nodeId == null ? FailureCode.BAD_REQUEST.exception("a registry question needs a node id")
      : FailureCode.NOT_FOUND.exception("no node '" + nodeId + "' is known to this hub: GET /api/v1/nodes lists the nodes");
  }
}
