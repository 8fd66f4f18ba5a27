package io.fleetbus.bench.http;

import io.fleetbus.bench.load.CallPath;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * One fan-out the way a user asks for one: a single {@code POST /api/v1/calls} naming labels, {@code mode: all}; done
 * when the hub answers, which it does once every eligible node has; fails unless exactly {@code nodes} answered ok.
 */
public final class SelectorFanOutPath implements CallPath {
  private final HubClient client;
  private final JsonObject body;
  private final int nodes;

  public SelectorFanOutPath(HubClient client, String tool, JsonObject labels, int nodes) {
    this.client = client;
    this.body = new JsonObject().put("tool", tool).put("args", new JsonObject()).put("labels", labels)
      .put("mode", "all").put("maxConcurrency", nodes);
    this.nodes = nodes;
  }

  @Override
  public Future<Void> call() {
    return client.post("/api/v1/calls", body).compose(answer -> {
      JsonObject summary = answer.getJsonObject("data", new JsonObject()).getJsonObject("summary", new JsonObject());
      return summary.getInteger("ok", -1) == nodes && summary.getInteger("nodes", -1) == nodes
        ? Future.<Void>succeededFuture()
        : Future.failedFuture(new IllegalStateException("fan-out to " + nodes + " nodes answered " + summary.encode()));
    });
  }
}
