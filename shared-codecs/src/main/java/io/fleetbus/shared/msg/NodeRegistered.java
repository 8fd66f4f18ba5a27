package io.fleetbus.shared.msg;

import io.vertx.core.json.JsonObject;

/** The hub's answer to a hello: the registration epoch, the heartbeat rhythm and the node's keys. */
public record NodeRegistered(long epoch, long heartbeatIntervalMs, String credential, String hubPublicKey) {

  public JsonObject toJson() {
    return new JsonObject()
      .put("epoch", epoch)
      .put("heartbeatIntervalMs", heartbeatIntervalMs)
      .put("credential", credential)
      .put("hubPublicKey", hubPublicKey);
  }

  public static NodeRegistered fromJson(JsonObject j) {
    return new NodeRegistered(j.getLong("epoch", 0L), j.getLong("heartbeatIntervalMs", 5000L),
      j.getString("credential"), j.getString("hubPublicKey"));
  }
}
