package io.fleetbus.hub;

import io.vertx.core.Future;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Waits on the test thread (never on an event loop) for a Vert.x future: its result, or the failure it ended with. */
public final class TestFutures {
  private TestFutures() {
  }

  /** The result, within 2 s. */
  public static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(2, TimeUnit.SECONDS);
  }

  /** The failure, within 2 s; an AssertionError when the future succeeds. */
  public static Throwable failureOf(Future<?> f) throws Exception {
    try {
      Object result = await(f);
      throw new AssertionError("expected a failure, got " + result);
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }
}
