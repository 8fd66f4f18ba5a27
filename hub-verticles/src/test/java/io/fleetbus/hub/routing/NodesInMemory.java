package io.fleetbus.hub.routing;

import io.fleetbus.hub.registry.NodeRecord;
import io.fleetbus.hub.registry.RegistryNotAsked;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.Metrics;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A registry that only knows the nodes a test puts in it: what routing asks (lookup, candidates) and nothing else. */
final class NodesInMemory extends RegistryNotAsked {
  private final Map<String, NodeRecord> nodes = new LinkedHashMap<>();

  NodesInMemory() {
    super("routing");
  }

  /** An online node on {@code platform} with capability {@code tier}, {@code labels}, and {@code cpuPercent} busy. */
  static NodeRecord node(String nodeId, String platform, String tier, JsonObject labels, double cpuPercent,
                         boolean online) {
    long now = System.currentTimeMillis();
    return new NodeRecord(nodeId, nodeId + "-process", platform, tier, labels, "test", new JsonArray(), 1, now, now,
      online, now, new Metrics(cpuPercent, 0, 1000, 1000, 60, 0.1, null), null);
  }

  NodesInMemory put(NodeRecord node) {
    nodes.put(node.nodeId(), node);
    return this;
  }

  @Override
  public Future<NodeRecord> lookup(String nodeId) {
    NodeRecord n = nodes.get(nodeId);
    return n != null ? Future.succeededFuture(n)
      : Future.failedFuture(FailureCode.NOT_FOUND.exception("no node '" + nodeId + "' is known to this hub"));
  }

  @Override
  public Future<List<NodeRecord>> candidates() {
    return Future.succeededFuture(new ArrayList<>(nodes.values()));
  }

  @Override
  public Future<Void> ping() {
    return Future.succeededFuture();
  }

  @Override
  public Future<Boolean> forget(String nodeId) {
    return Future.succeededFuture(nodes.remove(nodeId) != null);
  }
}
