package io.fleetbus.hub.registry;

import io.fleetbus.shared.msg.Metrics;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * What the hub knows of one node: the durable part (stored) and the live part (online, last
 * heartbeat, last metrics). Immutable: the registry replaces a record to change it.
 */
public record NodeRecord(String nodeId, String instanceId, String platform, String capabilityTier, JsonObject labels,
                         String agentVersion, JsonArray tools, long epoch, long firstSeen, long lastSeen,
                         boolean online, long lastHeartbeat, Metrics metrics, JsonObject confinement) {

  /** As known from the store, before the node's hello tells its confinement. */
  public NodeRecord(String nodeId, String instanceId, String platform, String capabilityTier, JsonObject labels,
                    String agentVersion, JsonArray tools, long epoch, long firstSeen, long lastSeen, boolean online,
                    long lastHeartbeat, Metrics metrics) {
    this(nodeId, instanceId, platform, capabilityTier, labels, agentVersion, tools, epoch, firstSeen, lastSeen, online,
      lastHeartbeat, metrics, null);
  }

  public NodeRecord withLiveness(boolean nowOnline, long seenAt) {
    return new NodeRecord(nodeId, instanceId, platform, capabilityTier, labels, agentVersion, tools, epoch, firstSeen,
      Math.max(lastSeen, seenAt), nowOnline, lastHeartbeat, metrics, confinement);
  }

  public NodeRecord withLabels(JsonObject newLabels) {
    return new NodeRecord(nodeId, instanceId, platform, capabilityTier, newLabels, agentVersion, tools, epoch, firstSeen,
      lastSeen, online, lastHeartbeat, metrics, confinement);
  }

  public NodeRecord withHeartbeat(long at, Metrics m) {
    return new NodeRecord(nodeId, instanceId, platform, capabilityTier, labels, agentVersion, tools, epoch, firstSeen,
      at, online, at, m, confinement);
  }

  public JsonObject toJson() {
    return new JsonObject()
      .put("nodeId", nodeId)
      .put("instanceId", instanceId)
      .put("online", online)
      .put("platform", platform)
      .put("capabilityTier", capabilityTier)
      .put("labels", labels)
      .put("agentVersion", agentVersion)
      .put("tools", tools)
      .put("epoch", epoch)
      .put("firstSeen", firstSeen)
      .put("lastSeen", lastSeen)
      .put("lastHeartbeat", lastHeartbeat == 0 ? null : lastHeartbeat)
      .put("metrics", metrics == null ? null : metrics.toJson())
      .put("confinement", confinement);
  }
}
