package io.fleetbus.shared.msg;

import io.vertx.core.json.JsonObject;

/**
 * A node's periodic sign of life, published on {@code fleet.heartbeat}. {@code proof} is an HMAC
 * keyed by the node's credential hash over the other fields: published messages reach every member,
 * so the credential itself is never in one.
 */
public record Heartbeat(String nodeId, String instanceId, long seq, long sentAt, Metrics metrics, String proof) {

  public Heartbeat withProof(String newProof) {
    return new Heartbeat(nodeId, instanceId, seq, sentAt, metrics, newProof);
  }

  public JsonObject toJson() {
    return new JsonObject()
      .put("nodeId", nodeId)
      .put("instanceId", instanceId)
      .put("seq", seq)
      .put("sentAt", sentAt)
      .put("metrics", metrics == null ? null : metrics.toJson())
      .put("proof", proof);
  }

  public static Heartbeat fromJson(JsonObject j) {
    return new Heartbeat(j.getString("nodeId"), j.getString("instanceId"), j.getLong("seq", 0L),
      j.getLong("sentAt", 0L), Metrics.fromJson(j.getJsonObject("metrics")), j.getString("proof"));
  }
}
