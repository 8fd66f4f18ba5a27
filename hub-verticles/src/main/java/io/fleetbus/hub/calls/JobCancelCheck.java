package io.fleetbus.hub.calls;

import io.fleetbus.hub.authz.Access;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.function.Function;

/**
 * job_cancel follows call visibility (issue 32, "who sees what"): a caller who is neither approver nor admin cancels
 * only a job they launched. Only the node knows a job's owner, so before the cancel is sent the node is asked for the
 * job's state as the same caller ({@code job_status}, passed through {@link Access#nodeAnswer}): another user's job
 * gets the 404 job_logs gives, and nothing is cancelled; the caller's own job is cancelled on the node that answered.
 * A fan-out cancel by such a caller is refused (a job id names a job on one node). Approvers and admins skip the
 * question (and so does {@code -Dfleetbus.fault.noAuthz=true}).
 */
public final class JobCancelCheck {
  public static final String TOOL = "job_cancel";
  private static final long ASK_MS = 10_000;

  private JobCancelCheck() {
  }

  /** The job a cancel names ({@code job_id}, or {@code execution_id} as some clients call it). */
  private static Object jobId(ToolCall cancel) {
    return cancel.args().getValue("job_id", cancel.args().getValue("execution_id"));
  }

  /** The cancel to send (to the node that answered for the job), or the refusal; other calls as they are. */
  public static Future<ToolCall> admit(ToolCall cancel, Function<ToolCall, Future<ToolResult>> route) {
    if (!TOOL.equals(cancel.tool())) {
      return Future.succeededFuture(cancel); // every other call: one string comparison
    }
    Caller caller = new Caller(cancel.principal(), cancel.roles());
    if (Access.seesAll(caller)) {
      return Future.succeededFuture(cancel);
    }
    // a selector's mode "all" is a fan-out (routing's Selector; read here as the plain field it is)
    if (cancel.nodeId() == null && cancel.selector() != null && !"one".equals(cancel.selector().getValue("mode", "one"))) {
      return Future.failedFuture(FailureCode.BAD_REQUEST.exception("job_cancel across nodes (fan-out) is for approvers"
        + " and admins; name the node that runs your job (a job id belongs to one node)"));
    }
    ToolCall ask = new ToolCall(cancel.callId() + "-owner", null, cancel.principal(), cancel.roles(), "job_status",
      new JsonObject().put("job_id", jobId(cancel)), cancel.nodeId(), cancel.selector(),
      Math.min(cancel.timeoutMs(), ASK_MS), false, null);
    return route.apply(ask).map(answer -> {
      if (!ToolResult.OK.equals(answer.status())) {
        // the job's owner could not be told: nothing is cancelled
        throw FailureCode.of(answer.errorCode() == null ? 500 : answer.errorCode()).exception("job_cancel: node "
          + answer.nodeId() + " could not tell whose job '" + jobId(cancel) + "' is ("
          + answer.errorMessage() + "); nothing was cancelled");
      }
      ToolResult seen = Access.nodeAnswer(caller, "job_status", answer); // another user's job: 404, nothing cancelled
      return cancel.nodeId() != null || seen.nodeId() == null ? cancel : cancel.withNode(seen.nodeId());
    });
  }
}
