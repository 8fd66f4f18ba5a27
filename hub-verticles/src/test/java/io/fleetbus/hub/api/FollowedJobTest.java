package io.fleetbus.hub.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.StreamChunk;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 19, item 2: following a job ends with the stream's last chunk once the output before it arrived (even when
 * the last chunk overtook some), or — the stream lost — with the node's job.finished event.
 */
@Timeout(30)
class FollowedJobTest {
  private Vertx vertx;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    Codecs.register(vertx);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** One job-state field (issue 33): a followed job's answer has the final state in data.status, and in data.job. */
  @Test
  void theAnswerCarriesTheFinalStateAtTheTop() {
    JsonObject launched = new JsonObject().put("jobId", "j9").put("status", "running").put("pid", 42).put("label", "x");
    JsonObject last = new JsonObject().put("jobId", "j9").put("status", "failed").put("exitCode", 3);
    JsonObject answer = FollowedJob.answer(launched, last);
    assertEquals("failed", answer.getString("status"), answer.encode());
    assertEquals(3, answer.getInteger("exitCode"));
    assertEquals("x", answer.getString("label"), "what the launch said stays");
    assertEquals("failed", answer.getJsonObject("job").getString("status"), "kept for older clients");
    assertEquals("running", launched.getString("status"), "the launch answer is not changed");
  }

  @Test
  void theLastChunkEndsItOnceTheOutputItOvertookHasArrived() throws Exception {
    List<String> output = new CopyOnWriteArrayList<>();
    CallStream stream = CallStream.listen(vertx, "c1", null, c -> output.add(c.data()));
    await(stream.ready());
    FollowedJob job = FollowedJob.follow(vertx, stream, "n1", "j1");
    String address = Addresses.callStream("c1");
    vertx.eventBus().send(address, new StreamChunk("c1", 1, "stdout", "one\n", false));
    // the last chunk overtakes the second: the following waits for it (not for a timer)
    vertx.eventBus().send(address, new StreamChunk("c1", 3, "end", new JsonObject().put("status", "completed")
      .put("exitCode", 0).encode(), true));
    vertx.eventBus().send(address, new StreamChunk("c1", 2, "stdout", "two\n", false));
    List<String> heardBeforeTheEnd = await(job.ended().map(state -> {
      assertEquals("completed", state.getString("status"));
      return List.copyOf(output);
    }));
    assertEquals(List.of("one\n", "two\n"), heardBeforeTheEnd, "the output the last chunk overtook came first");
  }

  @Test
  void theNodesJobFinishedEventEndsItWhenTheStreamWasLost() throws Exception {
    CallStream stream = CallStream.listen(vertx, "c2", null, c -> { });
    await(stream.ready());
    FollowedJob job = FollowedJob.follow(vertx, stream, "n1", "j2");
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "job.finished").put("jobId", "other")
      .put("nodeId", "n1").put("status", "failed"));
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "job.finished").put("jobId", "j2")
      .put("nodeId", "n9").put("status", "failed"));
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "job.finished").put("jobId", "j2")
      .put("nodeId", "n1").put("status", "timed_out").put("exitCode", 143));
    JsonObject state = await(job.ended());
    assertEquals("timed_out", state.getString("status"), "the event of this job on this node, not another's");
    assertEquals(143, state.getInteger("exitCode"));
  }

  @Test
  void stoppingLeavesNothingListening() throws Exception {
    CallStream stream = CallStream.listen(vertx, "c3", null, c -> { });
    await(stream.ready());
    FollowedJob job = FollowedJob.follow(vertx, stream, "n1", "j3");
    job.stop();
    for (String address : List.of(Addresses.EVENTS, Addresses.callStream("c3"))) {
      // a request finds no handler at once when nobody listens any more
      java.util.concurrent.ExecutionException none = org.junit.jupiter.api.Assertions.assertThrows(
        java.util.concurrent.ExecutionException.class, () -> await(vertx.eventBus().request(address, new JsonObject())));
      assertEquals(io.vertx.core.eventbus.ReplyFailure.NO_HANDLERS,
        ((io.vertx.core.eventbus.ReplyException) none.getCause()).failureType(), address);
    }
    assertFalse(job.ended().isComplete());
  }
}
