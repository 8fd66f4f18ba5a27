package io.fleetbus.bench.floor;

import io.fleetbus.bench.load.CallPath;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;

/** The floor: a plain clustered event-bus request/reply with a ~200-byte JSON body, nothing of fleetbus in between. */
public final class FloorPath implements CallPath {
  private static final DeliveryOptions OPTIONS = new DeliveryOptions().setSendTimeout(10_000);

  private final Vertx vertx;
  private final JsonObject payload = payload();

  public FloorPath(Vertx vertx) {
    this.vertx = vertx;
  }

  /** A body shaped like a small tool call, about 200 bytes once encoded. */
  static JsonObject payload() {
    return new JsonObject()
      .put("callId", "7f1c2d9e-5b4a-4c1e-9f3a-2b6d8e0a1c4f")
      .put("principal", "dev-admin")
      .put("tool", "get_agent_health")
      .put("nodeId", "bench-node")
      .put("args", new JsonObject())
      .put("timeoutMs", 30000)
      .put("roles", new io.vertx.core.json.JsonArray().add("admin").add("approver"))
      .put("stream", false);
  }

  public int payloadBytes() {
    return payload.encode().length();
  }

  @Override
  public Future<Void> call() {
    return vertx.eventBus().<JsonObject>request(FloorServerMain.ECHO, payload, OPTIONS).mapEmpty();
  }
}
