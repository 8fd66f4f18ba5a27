package io.fleetbus.hub.monitor;

import io.vertx.core.json.JsonObject;

/**
 * A node process for the monitor to expect heartbeats from: its instance (heartbeats of another process are stale),
 * its cluster member (gone when that member leaves), its heartbeat interval, and whether it must first prove it is
 * alive with a heartbeat (a node that just enrolled) rather than being online with its hello. Travels as JSON.
 */
public record Tracking(String nodeId, String instanceId, String memberId, long intervalMs, boolean awaitHeartbeat) {

  public JsonObject toJson() {
    return new JsonObject().put("nodeId", nodeId).put("instanceId", instanceId).put("memberId", memberId)
      .put("intervalMs", intervalMs).put("awaitHeartbeat", awaitHeartbeat);
  }

  public static Tracking fromJson(JsonObject json) {
    return new Tracking(json.getString("nodeId"), json.getString("instanceId"), json.getString("memberId"),
      json.getLong("intervalMs"), json.getBoolean("awaitHeartbeat", false));
  }
}
