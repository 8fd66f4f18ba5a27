package io.fleetbus.shared.msg;

import io.vertx.core.json.JsonObject;

/**
 * The hub's answer to a hello: the registration epoch and heartbeat rhythm. At enrollment
 * {@code credential} is a sealed box (only the enrollment token's holder opens it) holding the new
 * credential and the hub's directive key; {@code proof} shows the answer comes from a hub that knows
 * the node's credential, so a cluster member posing as a hub is ignored.
 */
public record NodeRegistered(long epoch, long heartbeatIntervalMs, String credential, String hubPublicKey,
                             String proof) {

  public NodeRegistered(long epoch, long heartbeatIntervalMs, String credential, String hubPublicKey) {
    this(epoch, heartbeatIntervalMs, credential, hubPublicKey, null);
  }

  public JsonObject toJson() {
    return new JsonObject()
      .put("epoch", epoch)
      .put("heartbeatIntervalMs", heartbeatIntervalMs)
      .put("credential", credential)
      .put("hubPublicKey", hubPublicKey)
      .put("proof", proof);
  }

  public static NodeRegistered fromJson(JsonObject j) {
    return new NodeRegistered(j.getLong("epoch", 0L), j.getLong("heartbeatIntervalMs", 5000L),
      j.getString("credential"), j.getString("hubPublicKey"), j.getString("proof"));
  }
}
