package io.fleetbus.hub.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Both ways of waiting for a group commit hear only after their batch was written, and both hear a batch that failed;
 * an answer asked for on the writing thread comes from there, not from the owner's event loop.
 */
@Timeout(30)
class GroupCommitTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private record Heard(AsyncResult<Void> result, boolean onEventLoop, boolean written) {
  }

  @Test
  void waitersHearAfterTheWriteAndHearAFailedBatch() throws Exception {
    Set<String> written = ConcurrentHashMap.newKeySet();
    Context owner = vertx.getOrCreateContext();
    Promise<Heard> viaLoop = Promise.promise();
    Promise<Heard> viaWorker = Promise.promise();
    Promise<Heard> failedViaLoop = Promise.promise();
    Promise<Heard> failedViaWorker = Promise.promise();
    owner.runOnContext(v -> {
      GroupCommit<String> commits = new GroupCommit<>(vertx, "test", 50, 100, (List<String> batch) -> {
        if (batch.contains("bad")) {
          throw new java.sql.SQLException("disk full");
        }
        written.addAll(batch);
      });
      commits.commit("a").onComplete(ar -> viaLoop.complete(new Heard(ar, Context.isOnEventLoopThread(),
        written.contains("a"))));
      commits.commit("b", ar -> viaWorker.complete(new Heard(ar, Context.isOnEventLoopThread(), written.contains("b"))));
      // a batch window of 50 ms: the next two land in a later batch, which fails
      vertx.setTimer(200, t -> {
        commits.commit("bad").onComplete(ar -> failedViaLoop.complete(new Heard(ar, Context.isOnEventLoopThread(),
          written.contains("bad"))));
        commits.commit("c", ar -> failedViaWorker.complete(new Heard(ar, Context.isOnEventLoopThread(),
          written.contains("c"))));
      });
    });
    Heard a = await(viaLoop.future());
    Heard b = await(viaWorker.future());
    assertTrue(a.result().succeeded() && a.written() && a.onEventLoop(), a.toString());
    assertTrue(b.result().succeeded() && b.written(), b.toString());
    assertFalse(b.onEventLoop(), "the answer asked for on the writer comes from the writing worker");
    Heard bad = await(failedViaLoop.future());
    Heard c = await(failedViaWorker.future());
    assertTrue(bad.result().failed() && !bad.written(), bad.toString());
    assertTrue(c.result().failed() && !c.written(), c.toString());
    assertEquals("disk full", c.result().cause().getMessage());
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
