package io.fleetbus.hub.ws;

import io.fleetbus.hub.api.CallStream;
import io.fleetbus.hub.api.FollowedJob;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.StreamChunk;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * One call made over a socket: listens on the call's stream address before submitting it, relays
 * chunks, reports a pending approval, and ends with {@code result} (status {@code ok}, or {@code cancelled} when
 * someone stopped or withdrew it: not an error) or {@code error}. A job launched with {@code follow: true} says
 * {@code following} (with the job id) when it started, relays its output until it ends, and then answers
 * {@code result} with the job's final state under {@code data.job}.
 */
final class WsCall {
  /** A result may overtake the last chunks on the bus; give them this long to arrive first. */
  static final long LAST_CHUNK_GRACE_MS = 500;

  private final WsSession session;
  private final Object clientId;
  private final ToolCall call;
  private CallStream stream;
  private boolean done;
  private boolean detached;
  private boolean following;
  private FollowedJob followed;

  WsCall(WsSession session, Object clientId, ToolCall call) {
    this.session = session;
    this.clientId = clientId;
    this.call = call;
  }

  Object clientId() {
    return clientId;
  }

  String callId() {
    return call.callId();
  }

  void start() {
    if (call.stream()) {
      stream = session.calls().listen(call.callId(), this::onChunk);
    }
    (stream == null ? Future.<Void>succeededFuture() : stream.ready())
      .compose(v -> session.calls().submit(call))
      .onSuccess(this::onSubmitted)
      .onFailure(err -> fail(FailureCode.of(err), err.getMessage()));
  }

  private void onChunk(StreamChunk chunk) {
    session.send(new JsonObject().put("type", "chunk").put("id", clientId).put("stream", chunk.stream())
      .put("seq", chunk.seq()).put("data", chunk.data()));
  }

  private void onSubmitted(ToolResult result) {
    if (ToolResult.ERROR.equals(result.status())) {
      fail(FailureCode.of(result.errorCode() == null ? 500 : result.errorCode()), result.errorMessage());
      return;
    }
    if (!ToolResult.PENDING.equals(result.status())) {
      finish(result.toJson());
      return;
    }
    String approvalId = result.data().getString("approvalId");
    session.calls().approval(approvalId).onComplete(ar -> {
      session.send(new JsonObject().put("type", "approval_required").put("id", clientId).put("callId", call.callId())
        .put("approvalId", approvalId).put("summary", ar.succeeded() ? ar.result().getString("summary") : null));
      poll();
    });
  }

  /** A parked call's outcome comes from its record once a person decided and the node answered. */
  private void poll() {
    session.calls().awaitFinished(call.callId(), () -> !done && !session.isClosed()).onComplete(ar -> {
      if (ar.failed()) {
        fail(FailureCode.of(ar.cause()), ar.cause().getMessage());
        return;
      }
      JsonObject rec = ar.result();
      JsonObject error = rec.getJsonObject("error");
      if (rec.getValue("finishedAt") == null) {
        return; // the socket went away; the record stays queryable over REST
      }
      if (error != null) {
        fail(FailureCode.of(error.getInteger("code", 500)), error.getString("message"));
      } else {
        finish(new JsonObject().put("callId", call.callId()).put("nodeId", rec.getString("nodeId"))
          .put("status", rec.getString("status")).put("data", rec.getValue("data")).put("durationMs", rec.getValue("durationMs")));
      }
    });
  }

  private void finish(JsonObject result) {
    if (done || detached) {
      return; // the socket went away
    }
    JsonObject msg = result.put("type", "result").put("id", clientId);
    if (stream == null) {
      end(msg);
    } else if (CallStream.follows(call) && ToolResult.OK.equals(result.getString("status"))) {
      follow(msg);
    } else {
      stream.drained(LAST_CHUNK_GRACE_MS).onComplete(v -> end(msg));
    }
  }

  /** The job started: its output keeps coming until it ends; the result follows with its final state. */
  private void follow(JsonObject msg) {
    following = true;
    JsonObject launched = msg.getValue("data") instanceof JsonObject d ? d : new JsonObject();
    session.send(new JsonObject().put("type", "following").put("id", clientId).put("callId", call.callId())
      .put("data", launched));
    followed = FollowedJob.follow(session.vertx(), stream, msg.getString("nodeId"), launched.getString("jobId"));
    followed.ended().onSuccess(job -> {
      if (!detached) {
        end(msg.put("data", FollowedJob.answer(launched, job)));
      }
    });
  }

  boolean following() {
    return following && !done;
  }

  /** A cancel while following: this socket stops following; the job goes on (job_cancel stops it). */
  void stopFollowing(Object cancelId) {
    if (done) {
      return;
    }
    done = true;
    session.send(new JsonObject().put("type", "cancelled").put("id", cancelId).put("callId", call.callId())
      .put("ran", true).put("following", false)
      .put("message", "stopped following the job; it goes on (job_cancel stops it)"));
    detach();
    session.finished(this);
  }

  private void fail(FailureCode code, String message) {
    end(new JsonObject().put("type", "error").put("id", clientId).put("callId", call.callId()).put("code", code.code)
      .put("message", message));
  }

  private void end(JsonObject msg) {
    if (done) {
      return;
    }
    done = true;
    session.send(msg);
    detach();
    session.finished(this);
  }

  /** Stops listening; the call itself goes on and its record stays queryable over REST. */
  void detach() {
    detached = true;
    if (followed != null) {
      followed.stop();
    }
    if (stream != null) {
      stream.close();
      stream = null;
    }
  }
}
