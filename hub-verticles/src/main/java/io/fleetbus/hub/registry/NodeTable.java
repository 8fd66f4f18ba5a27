package io.fleetbus.hub.registry;

import io.fleetbus.shared.cluster.MemberPins;
import io.fleetbus.shared.msg.Metrics;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What this hub knows of the nodes right now, in memory: their records, the heartbeat interval set per node, the
 * cluster member each proved itself on, the gap between its heartbeats as seen here, and the nodes the hub's config
 * expects. Used on the registry verticle's event loop only (no locks); the durable copy is {@link NodeStore}.
 */
final class NodeTable {
  private final Map<String, NodeRecord> nodes = new TreeMap<>();
  /** Heartbeat intervals set per node by config_update; others use the hub's default. */
  private final Map<String, Long> intervals = new HashMap<>();
  /** Each node's cluster member, as its hello said (shared with the other hubs so they notice it leave). */
  private final Map<String, String> memberIds = new HashMap<>();
  /** Each node's event-bus address, as its proven hello said (issue 32). */
  private final Map<String, String> buses = new HashMap<>();
  private static final String CLUSTER = "cluster";
  /** How each node reaches the fleet ({@link #transportOf}). */
  private final Map<String, String> transports = new HashMap<>();
  /** Smoothed gap between a node's heartbeats as this hub sees them, in ms. */
  private final Map<String, Long> observedGaps = new HashMap<>();
  /** Nodes the hub's config expects (by id), shown as "never connected" until they say hello. */
  private Map<String, JsonObject> expected = Map.of();
  private final long defaultIntervalMs;
  private final MemberPins pins;
  /** The same records for the call path, changed with every record here. */
  private final NodeView view;

  NodeTable(long defaultIntervalMs, MemberPins pins) {
    this(defaultIntervalMs, pins, new NodeView());
  }

  NodeTable(long defaultIntervalMs, MemberPins pins, NodeView view) {
    this.defaultIntervalMs = defaultIntervalMs;
    this.pins = pins;
    this.view = view;
  }

  /** The nodes and per-node intervals as the file kept them. */
  void load(List<NodeRecord> records, Map<String, Long> storedIntervals) {
    records.forEach(this::put);
    intervals.putAll(storedIntervals);
  }

  /** The node's record, or null (also for a null id). */
  NodeRecord get(String nodeId) {
    return nodeId == null ? null : nodes.get(nodeId);
  }

  void put(NodeRecord rec) {
    nodes.put(rec.nodeId(), rec);
    view.put(rec);
  }

  boolean contains(String nodeId) {
    return get(nodeId) != null;
  }

  /** A consistent copy of every record. */
  List<NodeRecord> records() {
    return List.copyOf(nodes.values());
  }

  /** The interval the node's heartbeats are expected at: its own (config_update), else the hub's default. */
  long intervalOf(String nodeId) {
    return intervals.getOrDefault(nodeId, defaultIntervalMs);
  }

  void setInterval(String nodeId, long intervalMs) {
    intervals.put(nodeId, intervalMs);
  }

  /**
   * The member a node proved itself on (its proven hello, or another hub's sealed registration): from now on only
   * that member's consumers receive the node's calls and controls (MemberPins).
   */
  void pin(String nodeId, String memberId, String transport, String bus) {
    memberIds.put(nodeId, memberId);
    transports.put(nodeId, transport == null ? CLUSTER : transport);
    if (bus == null) {
      buses.remove(nodeId);
    } else {
      buses.put(nodeId, bus);
    }
    pins.pin(nodeId, memberId, bus);
  }

  /** Where the node's proven hello said its event bus listens (null: an older node, or an edge node). */
  String busOf(String nodeId) {
    return buses.get(nodeId);
  }

  /** {@code cluster} (the node is a cluster member) or {@code edge} (it links to a hub's edge endpoint). */
  String transportOf(String nodeId) {
    return transports.getOrDefault(nodeId, CLUSTER);
  }

  String memberOf(String nodeId) {
    return memberIds.get(nodeId);
  }

  /** Forgets the node (record, member pin, observed rhythm); answers whether it was known. */
  boolean remove(String nodeId) {
    memberIds.remove(nodeId);
    buses.remove(nodeId);
    transports.remove(nodeId);
    observedGaps.remove(nodeId);
    pins.unpin(nodeId);
    view.remove(nodeId);
    return nodes.remove(nodeId) != null;
  }

  /** A heartbeat the monitor accepted, seen {@code now}: false when the node is not known here. */
  boolean heartbeat(String nodeId, long now, Metrics metrics) {
    NodeRecord rec = get(nodeId);
    if (rec == null) {
      return false;
    }
    if (rec.lastHeartbeat() > 0) {
      observedGaps.merge(nodeId, now - rec.lastHeartbeat(), (old, gap) -> (old + gap) / 2);
    }
    put(rec.withHeartbeat(now, metrics));
    return true;
  }

  /** The record as the API shows one node: with its heartbeat interval, as set and as observed. */
  JsonObject view(NodeRecord rec) {
    return rec.toJson().put("transport", transportOf(rec.nodeId())).put("heartbeatIntervalMs", intervalOf(rec.nodeId()))
      .put("observedHeartbeatMs", observedGaps.get(rec.nodeId()));
  }

  /** The nodes the hub's config now expects ({@code [{nodeId, labels}, ...]}). */
  void expect(JsonArray expectedNodes) {
    Map<String, JsonObject> next = new TreeMap<>();
    expectedNodes.forEach(o -> next.put(((JsonObject) o).getString("nodeId"), (JsonObject) o));
    expected = next;
  }

  /** An expected node that never said hello, as the API shows it; null when the config does not expect it. */
  JsonObject neverConnected(String nodeId) {
    JsonObject node = nodeId == null ? null : expected.get(nodeId);
    return node == null ? null : new JsonObject().put("nodeId", nodeId).put("online", false)
      .put("state", "never connected").put("labels", node.getJsonObject("labels", new JsonObject()));
  }

  /** Every known node, then every expected one that never connected, as the API lists them. */
  JsonArray list() {
    JsonArray list = new JsonArray();
    nodes.values().forEach(n -> list.add(n.toJson().put("transport", transportOf(n.nodeId()))));
    expected.keySet().stream().filter(id -> !nodes.containsKey(id)).forEach(id -> list.add(neverConnected(id)));
    return list;
  }
}
