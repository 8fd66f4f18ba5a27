package io.fleetbus.bench.load;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Drives a {@link CallPath}: first untimed warm-up calls, then timed ones, keeping {@code inFlight}
 * calls outstanding (each lane issues its next call when its last one answers). Everything runs on
 * one Vert.x context, so the counters need no locks. The first failed call fails the run.
 */
public final class LoadRunner {
  private final Vertx vertx;

  public LoadRunner(Vertx vertx) {
    this.vertx = vertx;
  }

  /** Warm-up then measured calls; each phase also stops issuing once the load's time cap has passed. */
  public Future<Measured> run(CallPath path, Load load) {
    return run(path, load, Future::succeededFuture);
  }

  /** As above; {@code beforeTimed} runs between the warm-up and the timed calls (e.g. to reset a server's counters). */
  public Future<Measured> run(CallPath path, Load load, Supplier<Future<?>> beforeTimed) {
    Context ctx = vertx.getOrCreateContext();
    Promise<Measured> result = Promise.promise();
    ctx.runOnContext(v -> new Batch(path, load.warmup(), load.cap()).start(load.inFlight())
      .compose(w -> beforeTimed.get().compose(x -> new Batch(path, load.count(), load.cap()).start(load.inFlight())
        .map(m -> m.measured(w.done, load.inFlight()))))
      .onComplete(result));
    return result.future();
  }

  /** {@link #run} for the harness's main thread: waits for the result. */
  public Measured measure(CallPath path, Load load) throws InterruptedException {
    return measure(path, load, Future::succeededFuture);
  }

  /** {@link #run(CallPath, Load, Supplier)} for the harness's main thread: waits for the result. */
  public Measured measure(CallPath path, Load load, Supplier<Future<?>> beforeTimed) throws InterruptedException {
    return Await.result(run(path, load, beforeTimed), load.cap().multipliedBy(2).plusSeconds(30));
  }

  /** One phase: {@code total} calls at most, timed one by one. */
  private static final class Batch {
    private final CallPath path;
    private final int total;
    private final long capNanos;
    private final long[] nanos;
    private final Promise<Batch> finished = Promise.promise();
    private long startNanos;
    private long endNanos;
    private int issued;
    private int done;

    Batch(CallPath path, int total, Duration cap) {
      this.path = path;
      this.total = total;
      this.capNanos = cap.toNanos();
      this.nanos = new long[Math.max(1, total)];
    }

    Future<Batch> start(int lanes) {
      startNanos = System.nanoTime();
      if (total == 0) {
        endNanos = startNanos;
        finished.complete(this);
      }
      for (int i = 0; i < Math.min(lanes, total); i++) {
        next();
      }
      return finished.future();
    }

    private void next() {
      if (finished.future().isComplete()) {
        return;
      }
      if (issued >= total || System.nanoTime() - startNanos > capNanos) {
        if (done == issued) {
          endNanos = System.nanoTime();
          finished.tryComplete(this);
        }
        return;
      }
      int number = ++issued;
      long t0 = System.nanoTime();
      path.call().onComplete(ar -> {
        long took = System.nanoTime() - t0;
        if (ar.failed()) {
          finished.tryFail(new IllegalStateException("call " + number + " failed: " + ar.cause().getMessage(), ar.cause()));
          return;
        }
        nanos[done++] = took;
        next();
      });
    }

    Measured measured(long warmup, int inFlight) {
      double seconds = (endNanos - startNanos) / 1e9;
      return new Measured(LatencyStats.of(nanos, done), seconds > 0 ? done / seconds : 0, warmup, done, inFlight);
    }
  }
}
