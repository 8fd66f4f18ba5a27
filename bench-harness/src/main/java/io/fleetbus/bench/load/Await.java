package io.fleetbus.bench.load;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Blocking waits for the harness's own main thread (never an event loop). */
public final class Await {
  private Await() {
  }

  public static <T> T result(Future<T> future, Duration timeout) throws InterruptedException {
    try {
      return future.toCompletionStage().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("no result within " + timeout.toSeconds() + " s");
    }
  }

  /**
   * Calls until one call succeeds: right after a member joins, its consumers take a moment to be
   * visible across the cluster (NO_HANDLERS), which must not count against the path.
   */
  public static void firstAnswer(Vertx vertx, CallPath path, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Promise<Void> done = Promise.promise();
    attempt(vertx, path, deadline, done);
    result(done.future(), timeout.plusSeconds(5));
  }

  private static void attempt(Vertx vertx, CallPath path, long deadline, Promise<Void> done) {
    vertx.runOnContext(v -> path.call().onComplete(ar -> {
      if (ar.succeeded()) {
        done.complete();
      } else if (System.nanoTime() > deadline) {
        done.fail(ar.cause());
      } else {
        vertx.setTimer(100, t -> attempt(vertx, path, deadline, done));
      }
    }));
  }
}
