package io.fleetbus.hub.api;

import io.fleetbus.shared.msg.Heartbeat;
import io.vertx.core.json.JsonObject;

/** What frontends may show of {@code fleet.events} and {@code fleet.heartbeat}: JSON, without credentials. */
public final class PublicEvents {
  private PublicEvents() {
  }

  public static JsonObject toJson(Object body) {
    if (body instanceof Heartbeat hb) {
      return new JsonObject().put("nodeId", hb.nodeId()).put("seq", hb.seq()).put("sentAt", hb.sentAt())
        .put("metrics", hb.metrics() == null ? null : hb.metrics().toJson());
    }
    if (body instanceof JsonObject json) {
      JsonObject copy = json.copy();
      copy.remove("credential");
      return copy;
    }
    return new JsonObject().put("value", String.valueOf(body));
  }
}
