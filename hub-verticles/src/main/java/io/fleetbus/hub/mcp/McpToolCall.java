package io.fleetbus.hub.mcp;

import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.hub.api.CallStream;
import io.fleetbus.hub.api.FollowedJob;
import io.fleetbus.hub.consent.ConfirmPolicy;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.msg.StreamChunk;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code tools/call} of a fleet tool: the same submit path as REST, command output as
 * {@code notifications/progress}, tier 3 confirmed through {@code elicitation/create} when the client
 * can show it, and {@code notifications/cancelled} turned into a cancel on the node. Asked with {@code task}, it
 * answers a task at once instead (see {@link McpTasks}).
 */
final class McpToolCall {
  private static final Logger LOG = LoggerFactory.getLogger(McpToolCall.class);
  private static final long LAST_CHUNK_GRACE_MS = 500;
  /** Who decides a call under {@code confirm: second-person}. */
  static final String WHO_APPROVES = "an approver other than you (role approver or admin) must approve it — on the"
    + " dashboard, with POST /api/v1/approvals/{id}/approve, or 'fleetbus approve'";

  private final Vertx vertx;
  private final CallSubmitter calls;
  private final McpSession session;
  private final Caller caller;
  private final Object requestId;
  private final JsonObject params;
  private final McpReply reply;
  private final Object progressToken;
  /** tools/call asked for a task: answered with CreateTaskResult once the call is parked, never by elicitation. */
  private final boolean asTask;
  private ToolCall call;
  private CallStream stream;
  private FollowedJob followed;
  private boolean cancelled;
  private boolean done;
  /** The progress value of the last notification (a chunk's sequence number): each must be larger. */
  private double progress;

  McpToolCall(Vertx vertx, CallSubmitter calls, McpSession session, Caller caller, Object requestId, JsonObject params,
              McpReply reply) {
    this.vertx = vertx;
    this.calls = calls;
    this.session = session;
    this.caller = caller;
    this.requestId = requestId;
    this.params = params;
    this.reply = reply;
    this.asTask = McpTasks.asked(session, params);
    this.progressToken = asTask ? null : progressToken(params);
  }

  static Object progressToken(JsonObject params) {
    JsonObject meta = params.getJsonObject("_meta");
    return meta == null ? null : meta.getValue("progressToken");
  }

  void start() {
    JsonObject args = params.getJsonObject("arguments", new JsonObject()).copy();
    Object node = args.remove(McpTools.NODE_ARG);
    try {
      boolean hubTool = calls.catalog().find(params.getString("name")).map(t -> t.runsOnHub()).orElse(false);
      if (!hubTool && (!(node instanceof String nodeId) || nodeId.isBlank())) {
        // the other problems too: an unknown field such as agent_id is often the node under another name
        java.util.List<String> problems = new java.util.ArrayList<>(java.util.List.of(
          "missing required field 'node' (the id of a fleet node; list_nodes shows them)"));
        calls.catalog().find(params.getString("name")).ifPresent(t -> problems.addAll(calls.catalog().problems(t, args)));
        throw FailureCode.BAD_REQUEST.exception("invalid arguments for " + params.getString("name") + ": "
          + String.join("; ", problems));
      }
      // a job followed to its end is listened to even without progress: its last chunk carries the final state
      call = calls.prepare(caller, params.getString("name"), args, hubTool ? null : (String) node, null,
        !asTask && (progressToken != null || Boolean.TRUE.equals(args.getValue("follow"))));
    } catch (FleetException e) {
      calls.refused(caller, params.getString("name"), node instanceof String n ? n : null, e)
        .onComplete(v -> finish(McpResults.error(e.code().code, e.getMessage(), null)));
      return;
    }
    session.inFlight(requestId, this::cancel);
    Future<Void> listening = Future.succeededFuture();
    if (call.stream()) {
      stream = calls.listen(call.callId(), this::onChunk);
      listening = stream.ready();
    }
    listening.compose(v -> calls.submit(call))
      .onSuccess(this::onSubmitted)
      .onFailure(err -> finish(McpResults.error(FailureCode.of(err).code, err.getMessage(), call.callId())));
  }

  private void onChunk(StreamChunk chunk) {
    if (progressToken == null) {
      return;
    }
    progress = Math.max(progress, chunk.seq());
    reply.notify(JsonRpc.notification("notifications/progress", new JsonObject().put("progressToken", progressToken)
      .put("progress", chunk.seq()).put("message", chunk.data())));
  }

  private void onSubmitted(ToolResult result) {
    if (asTask) {
      String approvalId = result.data() == null ? null : result.data().getString("approvalId");
      finish(McpTasks.created(call.callId(), result, ToolResult.PENDING.equals(result.status())
        ? "Call " + call.callId() + " waits for approval " + approvalId + ": " + WHO_APPROVES + ". Its outcome: tasks/get"
          + " and tasks/result with this task id."
        : "Call " + call.callId() + " ended (" + result.status() + "): tasks/result has its result."));
      return;
    }
    switch (result.status()) {
      case ToolResult.OK -> succeeded(result.data(), result.nodeId());
      case ToolResult.CANCELLED -> finish(McpResults.cancelled(result.data(), call.callId(), result.nodeId()));
      case ToolResult.PENDING -> onPending(result.data().getString("approvalId"));
      default -> finish(McpResults.error(result.errorCode() == null ? 500 : result.errorCode(), result.errorMessage(),
        call.callId()));
    }
  }

  private void onPending(String approvalId) {
    calls.approval(approvalId).onComplete(ar -> {
      JsonObject approval = ar.succeeded() ? ar.result() : new JsonObject();
      String summary = approval.getString("summary", call.tool());
      boolean byUser = ConfirmPolicy.USER.equals(approval.getString("confirm"));
      if (!session.canElicit() || !reply.canAsk()) {
        finish(McpResults.pending(call.callId(), approvalId, summary, byUser ? null : WHO_APPROVES));
        return;
      }
      // whoever decides first ends the call: this person through the elicitation, or anyone allowed to elsewhere
      // (REST, dashboard, CLI); an approval nobody decides ends the call when it expires
      awaitOutcome();
      reply.ask("elicitation/create", byUser ? elicitation(summary) : secondPerson(summary, approvalId))
        .onSuccess(answer -> onElicited(approvalId, summary, answer, byUser))
        .onFailure(err -> finish(McpResults.pending(call.callId(), approvalId, summary,
          "the client did not answer the confirmation: " + err.getMessage())));
    });
  }

  private JsonObject elicitation(String summary) {
    JsonObject params = new JsonObject()
      .put("message", "Approve this privileged call? " + summary + "\narguments: " + call.args().encode())
      .put("requestedSchema", new JsonObject().put("type", "object").put("properties", new JsonObject()
        .put("reason", new JsonObject().put("type", "string").put("title", "Reason")
          .put("description", "optional note recorded with your decision"))));
    return withMode(params);
  }

  /** Under {@code second-person}: says who may approve; declining withdraws the call, accepting keeps waiting. */
  private JsonObject secondPerson(String summary, String approvalId) {
    return withMode(new JsonObject()
      .put("message", "This privileged call needs a second person: " + WHO_APPROVES + ". " + summary + "\narguments: "
        + call.args().encode() + "\nApproval " + approvalId + ". Accept to wait for their decision (the answer comes"
        + " here), decline to withdraw the call.")
      .put("requestedSchema", new JsonObject().put("type", "object").put("properties", new JsonObject())));
  }

  private JsonObject withMode(JsonObject params) {
    // form mode is named explicitly only from 2025-11-25 on; older clients reject unknown fields
    return "2025-06-18".equals(session.protocolVersion()) ? params : params.put("mode", "form");
  }

  private void onElicited(String approvalId, String summary, JsonObject answer, boolean byUser) {
    if (done) {
      return; // decided elsewhere first
    }
    // the client's answer arrives after this request's handler returned: a wrong type here must not throw
    String action = answer.getValue("action") instanceof String s ? s : "cancel";
    if (!"accept".equals(action) && !"decline".equals(action)) {
      finish(McpResults.pending(call.callId(), approvalId, summary, "the confirmation was dismissed"));
      return;
    }
    if (!byUser) {
      if ("decline".equals(action)) {
        LOG.info("mcp caller withdrew a call awaiting a second person [session: {}, approval: {}, by: {}]", session.id(),
          approvalId, caller.subject());
        calls.cancel(caller, call.callId()).onFailure(err -> finish(McpResults.error(FailureCode.of(err).code,
          "the call could not be withdrawn: " + err.getMessage(), call.callId())));
      }
      return; // accept: keep waiting for the approver's decision (awaitOutcome)
    }
    boolean approve = "accept".equals(action);
    JsonObject content = answer.getValue("content") instanceof JsonObject c ? c : new JsonObject();
    String reason = content.getValue("reason") instanceof String r ? r
      : approve ? "confirmed through MCP elicitation" : "declined through MCP elicitation";
    LOG.info("mcp elicitation answered [session: {}, approval: {}, action: {}, by: {}]", session.id(), approvalId, action,
      caller.subject());
    calls.decideByElicitation(caller, approvalId, approve, reason)
      .onFailure(err -> finish(McpResults.error(FailureCode.of(err).code, "approval " + approvalId
        + " stays pending: your decision was not accepted: " + err.getMessage(), call.callId())));
  }

  private void awaitOutcome() {
    calls.awaitFinished(call.callId(), () -> !done && !cancelled).onComplete(ar -> {
      if (ar.failed()) {
        finish(McpResults.error(FailureCode.of(ar.cause()).code, ar.cause().getMessage(), call.callId()));
        return;
      }
      JsonObject rec = ar.result();
      if (rec.getJsonObject("error") != null || ToolResult.CANCELLED.equals(rec.getString("status"))) {
        finish(McpResults.fromRecord(rec));
      } else {
        succeeded(rec.getJsonObject("data"), rec.getString("nodeId"));
      }
    });
  }

  /**
   * The tool answered: the result now — or, for a job launched with {@code follow: true}, once the job has ended, its
   * output sent as progress meanwhile and its final state under {@code job}.
   */
  private void succeeded(JsonObject data, String nodeId) {
    if (stream == null || !CallStream.follows(call) || done) {
      finish(McpResults.ok(data, call.callId(), nodeId));
      return;
    }
    JsonObject launched = data == null ? new JsonObject() : data;
    if (progressToken != null) {
      reply.notify(JsonRpc.notification("notifications/progress", new JsonObject().put("progressToken", progressToken)
        .put("progress", progress += 0.5).put("message", "following job " + launched.getString("jobId") + " until it ends")));
    }
    followed = FollowedJob.follow(vertx, stream, nodeId, launched.getString("jobId"));
    followed.ended().onSuccess(job -> finish(McpResults.ok(FollowedJob.answer(launched, job), call.callId(), nodeId)));
  }

  /** {@code notifications/cancelled}: stop the call on its node (or withdraw its approval); send no response. */
  private void cancel() {
    cancelled = true;
    calls.cancel(caller, call.callId())
      .onSuccess(r -> LOG.info("mcp call cancelled [call: {}, ran: {}]", call.callId(), r.getBoolean("ran")))
      .onFailure(err -> LOG.info("mcp cancel refused [call: {}, reason: {}]", call.callId(), err.getMessage()));
    finish(null);
  }

  private void finish(JsonObject result) {
    if (done) {
      return;
    }
    done = true;
    session.done(requestId);
    if (cancelled || result == null) {
      if (followed != null) {
        followed.stop();
      }
      if (stream != null) {
        stream.close();
      }
      reply.abandon();
    } else if (stream != null) {
      // the last output may still be on its way, and progress must come before the result
      stream.drained(LAST_CHUNK_GRACE_MS).onComplete(v -> reply.respond(JsonRpc.result(requestId, result)));
    } else {
      reply.respond(JsonRpc.result(requestId, result));
    }
  }
}
