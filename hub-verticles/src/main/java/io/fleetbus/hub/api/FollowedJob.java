package io.fleetbus.hub.api;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

/** The final state of a job a caller followed to its end, as its node's last stream chunk carried it. */
public final class FollowedJob {
  private FollowedJob() {
  }

  /** The job's final view (status, exitCode, endedAt …); a note instead when the node sent none readable. */
  public static JsonObject finalState(String lastChunkData) {
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
