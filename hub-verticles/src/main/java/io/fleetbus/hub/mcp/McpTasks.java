package io.fleetbus.hub.mcp;

import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/**
 * MCP tasks (protocol 2025-11-25, experimental there) for a call that waits for a person (issue 33): a client that
 * cannot show an elicitation asks {@code tools/call} with {@code task}, gets a task at once, polls {@code tasks/get}
 * and fetches the outcome with {@code tasks/result} once a second person approved (dashboard, REST, CLI). A task is
 * the call itself: its id is the call id and its state is the call's record, which every hub of the fleet holds for
 * 24 h, so any hub answers and a task outlives the session that made it. Only the caller who made a call sees it as a
 * task. {@code tasks/cancel} withdraws or stops the call; {@code tasks/list} is not offered.
 */
final class McpTasks {
  static final String RELATED = "io.modelcontextprotocol/related-task";
  /** A call record's status while its node runs it. */
  private static final String RUNNING = "running";
  static final long POLL_INTERVAL_MS = 1_000;
  /** As long as every hub keeps a call's record. */
  static final long TTL_MS = 24 * 3_600_000L;

  private final CallSubmitter calls;

  McpTasks(CallSubmitter calls) {
    this.calls = calls;
  }

  /** The server capability: task-augmented tools/call, tasks/cancel. */
  static JsonObject capability() {
    return new JsonObject().put("cancel", new JsonObject())
      .put("requests", new JsonObject().put("tools", new JsonObject().put("call", new JsonObject())));
  }

  /** The client asked tools/call for a task, in a session that speaks tasks. */
  static boolean asked(McpSession session, JsonObject params) {
    return session.tasks() && params.getValue("task") instanceof JsonObject;
  }

  /** The answer to a task-augmented tools/call once the call is parked (or already ended): CreateTaskResult. */
  static JsonObject created(String callId, ToolResult result, String message) {
    String now = Instant.now().toString();
    JsonObject task = task(callId, state(result.status()), message, now, now);
    return new JsonObject().put("task", task)
      .put("_meta", new JsonObject().put("io.modelcontextprotocol/model-immediate-response", message));
  }

  /** tasks/get, tasks/result or tasks/cancel; failures as JSON-RPC errors (an unknown task: -32602). */
  void handle(String method, Caller caller, Object id, JsonObject params, McpReply reply, BooleanSupplier listening) {
    if (!(params.getValue("taskId") instanceof String taskId) || taskId.isBlank()) {
      reply.respond(JsonRpc.error(id, JsonRpc.INVALID_PARAMS, method + " needs params.taskId (from the CreateTaskResult)"));
      return;
    }
    Future<JsonObject> answer = switch (method) {
      case "tasks/get" -> own(caller, taskId).map(McpTasks::task);
      case "tasks/result" -> own(caller, taskId).compose(rec -> calls.awaitFinished(taskId, listening))
        .map(rec -> {
          JsonObject result = McpResults.fromRecord(rec);
          return result.put("_meta", result.getJsonObject("_meta", new JsonObject())
            .put(RELATED, new JsonObject().put("taskId", taskId)));
        });
      default -> cancel(caller, taskId);
    };
    answer.onSuccess(r -> reply.respond(JsonRpc.result(id, r))).onFailure(err -> reply.respond(JsonRpc.error(id,
      err instanceof McpError m ? m.code : JsonRpc.INTERNAL_ERROR, err.getMessage())));
  }

  private Future<JsonObject> cancel(Caller caller, String taskId) {
    return own(caller, taskId).compose(rec -> {
      if (rec.getValue("finishedAt") != null) {
        return Future.failedFuture(new McpError(JsonRpc.INVALID_PARAMS, "task " + taskId + " already ended ("
          + state(rec.getString("status")) + "); a finished task cannot be cancelled"));
      }
      return calls.cancel(caller, taskId).compose(v -> calls.awaitCall(taskId, 0));
    }).map(rec -> task(rec).put("status", "cancelled").put("statusMessage", "cancelled by " + caller.subject()));
  }

  /** The call's record when {@code caller} made the call; else -32602, as for a task that does not exist. */
  private Future<JsonObject> own(Caller caller, String taskId) {
    return calls.awaitCall(taskId, 0).recover(err -> Future.failedFuture(FailureCode.of(err) == FailureCode.NOT_FOUND
      ? notYours(taskId) : err)).compose(rec -> caller.subject().equals(rec.getString("principal"))
      ? Future.succeededFuture(rec) : Future.failedFuture(notYours(taskId)));
  }

  private static McpError notYours(String taskId) {
    return new McpError(JsonRpc.INVALID_PARAMS, "Failed to retrieve task: no task " + taskId + " of yours (a task is"
      + " the call you made with tools/call; hubs keep it 24 h)");
  }

  /** A call's record as a Task: pending or running is working; ok completed; error failed; cancelled cancelled. */
  static JsonObject task(JsonObject rec) {
    String status = rec.getString("status");
    JsonObject error = rec.getJsonObject("error");
    String message = switch (status == null ? "" : status) {
      case ToolResult.PENDING -> "waiting for approval " + rec.getString("approvalId") + ": " + McpToolCall.WHO_APPROVES;
      case RUNNING -> "running on node " + rec.getString("nodeId");
      case ToolResult.ERROR -> error == null ? "failed" : "error " + error.getValue("code") + ": " + error.getString("message");
      case ToolResult.CANCELLED -> rec.getJsonObject("data", new JsonObject()).getString("message", "cancelled");
      default -> "finished: tasks/result has the result";
    };
    Long finished = rec.getLong("finishedAt");
    long created = rec.getLong("createdAt", System.currentTimeMillis());
    return task(rec.getString("callId"), state(status), message, Instant.ofEpochMilli(created).toString(),
      Instant.ofEpochMilli(finished == null || finished == 0 ? created : finished).toString());
  }

  private static JsonObject task(String taskId, String state, String message, String createdAt, String updatedAt) {
    JsonObject task = new JsonObject().put("taskId", taskId).put("status", state).put("statusMessage", message)
      .put("createdAt", createdAt).put("lastUpdatedAt", updatedAt).put("ttl", TTL_MS);
    return "working".equals(state) ? task.put("pollInterval", POLL_INTERVAL_MS) : task;
  }

  private static String state(String callStatus) {
    return switch (callStatus == null ? "" : callStatus) {
      case ToolResult.OK -> "completed";
      case ToolResult.ERROR -> "failed";
      case ToolResult.CANCELLED -> "cancelled";
      default -> "working";
    };
  }
}
