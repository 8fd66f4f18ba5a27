package io.fleetbus.bench.http;

import io.fleetbus.bench.load.CallPath;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.function.Predicate;

/** One tool call through the hub's HTTP API (API → approval → routing → node and back), its answer checked. */
public final class ToolCallPath implements CallPath {
  private final HubClient hub;
  private final String nodeId;
  private final String tool;
  private final Buffer args;
  private final Predicate<JsonObject> expected;

  public ToolCallPath(HubClient hub, String nodeId, String tool, JsonObject args, Predicate<JsonObject> expected) {
    this.hub = hub;
    this.nodeId = nodeId;
    this.tool = tool;
    this.args = Buffer.buffer(args.encode());
    this.expected = expected;
  }

  @Override
  public Future<Void> call() {
    return hub.callTool(nodeId, tool, args).compose(data -> expected.test(data) ? Future.succeededFuture()
      : Future.failedFuture(new IllegalStateException(tool + " on " + nodeId + " gave unexpected data: " + data.encode())));
  }
}
