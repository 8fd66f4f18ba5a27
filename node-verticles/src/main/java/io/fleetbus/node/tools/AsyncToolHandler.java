package io.fleetbus.node.tools;

import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletionStage;

/**
 * A tool whose answer may be minutes away but needs no thread meanwhile (job_wait waits on a job's
 * completion signal). {@link #start} runs on a worker like any handler and returns at once; holding
 * a worker for minutes instead would trip Vert.x's blocked-thread warnings and drain the pool.
 */
@FunctionalInterface
public interface AsyncToolHandler extends ToolHandler {
  CompletionStage<JsonObject> start(JsonObject args, CallContext ctx) throws Exception;

  @Override
  default JsonObject run(JsonObject args, CallContext ctx) throws Exception {
    return start(args, ctx).toCompletableFuture().get();
  }
}
