package io.fleetbus.hub.registry;

import io.vertx.core.json.JsonObject;

/**
 * A config_update a node confirmed, as the registry records it: who asked, what was asked, and the effective labels and
 * heartbeat interval the node reported (null when the update did not touch them). Travels as JSON on the hub's bus, so
 * it needs no codec.
 */
public record NodeSettings(String nodeId, String by, JsonObject update, JsonObject labels, Long heartbeatIntervalMs) {

  public JsonObject toJson() {
    return new JsonObject().put("nodeId", nodeId).put("by", by).put("update", update).put("labels", labels)
      .put("heartbeatIntervalMs", heartbeatIntervalMs);
  }

  public static NodeSettings fromJson(JsonObject json) {
    return new NodeSettings(json.getString("nodeId"), json.getString("by"), json.getJsonObject("update", new JsonObject()),
      json.getJsonObject("labels"), json.getLong("heartbeatIntervalMs"));
  }
}
