package io.fleetbus.hub.routing;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One call run on many nodes: at most {@code maxConcurrency} at a time, and no new sends once
 * {@code maxErrors} have failed. The answer has one entry per node (ok, cancelled, error with its code, or
 * not_run) and a summary. Confined to the router's event loop.
 */
final class FanOut {
  private final ToolCall call;
  private final Selector selector;
  private final Function<ToolCall, Future<ToolResult>> send;
  private final Deque<String> waiting;
  private final Map<String, JsonObject> results = new LinkedHashMap<>();
  private final Promise<ToolResult> done = Promise.promise();
  private final long started = System.nanoTime();
  private int running;
  private int errors;

  private FanOut(ToolCall call, Selector selector, List<String> nodes, Function<ToolCall, Future<ToolResult>> send) {
    this.call = call;
    this.selector = selector;
    this.send = send;
    this.waiting = new ArrayDeque<>(nodes);
    nodes.forEach(n -> results.put(n, new JsonObject().put("nodeId", n).put("status", "not_run")));
  }

  static Future<ToolResult> run(ToolCall call, Selector selector, List<String> nodes,
                                Function<ToolCall, Future<ToolResult>> send) {
    FanOut f = new FanOut(call, selector, nodes, send);
    f.fill();
    return f.done.future();
  }

  /** The per-node call: its own id, so each node's at-most-once record and signature are its own. */
  static ToolCall child(ToolCall parent, String nodeId) {
    return new ToolCall(parent.callId() + ":" + nodeId, parent.idempotencyKey() == null ? null
      : parent.idempotencyKey() + ":" + nodeId, parent.principal(), parent.roles(), parent.tool(), parent.args(), nodeId,
      null, parent.timeoutMs(), parent.stream(), null);
  }

  private void fill() {
    while (running < selector.maxConcurrency() && errors < selector.maxErrors() && !waiting.isEmpty()) {
      String nodeId = waiting.poll();
      running++;
      send.apply(child(call, nodeId)).onComplete(ar -> {
        running--;
        JsonObject entry = results.get(nodeId);
        if (ar.succeeded()) {
          entry.put("status", ar.result().status()).put("data", ar.result().data())
            .put("durationMs", ar.result().durationMs());
        } else {
          errors++;
          entry.put("status", "error").put("error", new JsonObject()
            .put("code", FailureCode.of(ar.cause()).code).put("message", ar.cause().getMessage()));
        }
        fill();
      });
    }
    if (running == 0 && (waiting.isEmpty() || errors >= selector.maxErrors())) {
      finish();
    }
  }

  private void finish() {
    JsonArray list = new JsonArray();
    int ok = 0;
    int notRun = 0;
    int cancelled = 0;
    for (JsonObject e : results.values()) {
      list.add(e);
      ok += ToolResult.OK.equals(e.getString("status")) ? 1 : 0;
      cancelled += ToolResult.CANCELLED.equals(e.getString("status")) ? 1 : 0;
      notRun += "not_run".equals(e.getString("status")) ? 1 : 0;
    }
    JsonObject summary = new JsonObject().put("nodes", results.size()).put("ok", ok).put("error", errors)
      .put("cancelled", cancelled).put("not_run", notRun).put("stoppedByMaxErrors", errors >= selector.maxErrors() && notRun > 0);
    done.tryComplete(ToolResult.ok(call.callId(), null, new JsonObject().put("mode", Selector.ALL).put("results", list)
      .put("summary", summary), (System.nanoTime() - started) / 1_000_000));
  }
}
