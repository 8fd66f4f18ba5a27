package io.fleetbus.hub.api;

import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

/**
 * A job a caller follows to its end ({@code follow: true}): its end comes as the last chunk of the launching call's
 * stream, carrying the job's final state. Should that stream be lost (the node rejoined the cluster while the job
 * ran), the node's proved {@code job.finished} event (verified on arrival) ends the following instead.
 */
public final class FollowedJob {
  /** The stream's last chunk normally comes first; an event that overtook it gives the trailing output this long. */
  private static final long EVENT_GRACE_MS = 1000;

  private final CallStream stream;
  private final MessageConsumer<Object> events;
  private final Promise<JsonObject> ended = Promise.promise();

  private FollowedJob(Vertx vertx, CallStream stream, String nodeId, String jobId) {
    this.stream = stream;
    this.events = vertx.eventBus().consumer(Addresses.EVENTS, m -> {
      if (m.body() instanceof JsonObject e && "job.finished".equals(e.getString("type"))
        && jobId != null && jobId.equals(e.getString("jobId")) && nodeId != null && nodeId.equals(e.getString("nodeId"))) {
        vertx.setTimer(EVENT_GRACE_MS, t -> ended.tryComplete(e.copy()));
      }
    });
    stream.end().onSuccess(last -> ended.tryComplete(finalState(last)));
    ended.future().onComplete(v -> stop());
  }

  /** Follows job {@code jobId} of node {@code nodeId}, launched by the call {@code stream} listens to. */
  public static FollowedJob follow(Vertx vertx, CallStream stream, String nodeId, String jobId) {
    return new FollowedJob(vertx, stream, nodeId, jobId);
  }

  /** The job's final state (status, exitCode, endedAt …) once it has ended and its output arrived. */
  public Future<JsonObject> ended() {
    return ended.future();
  }

  /** Stops listening (the caller left or stopped following); {@link #ended()} then never completes. */
  public void stop() {
    events.unregister();
    stream.close();
  }

  /**
   * A followed job's answer: the launch answer with the job's final view over it, so {@code status} (and exitCode,
   * endedAt …) is the job's final state as in every job tool's answer; {@code job} keeps the final view for older
   * clients.
   */
  public static JsonObject answer(JsonObject launched, JsonObject finalView) {
    return launched.copy().mergeIn(finalView).put("job", finalView);
  }

  /** The job's final view as the last chunk carried it; a note instead when the node sent none readable. */
  static JsonObject finalState(String lastChunkData) {
    if (lastChunkData != null && !lastChunkData.isBlank()) {
      try {
        return new JsonObject(lastChunkData);
      } catch (DecodeException e) {
        // fall through: an older node ends its stream without the job's state
      }
    }
    return new JsonObject().put("status", "ended")
      .put("message", "the job ended; job_status has its final state");
  }
}
