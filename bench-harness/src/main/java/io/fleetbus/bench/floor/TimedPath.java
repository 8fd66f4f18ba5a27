package io.fleetbus.bench.floor;

import io.fleetbus.bench.load.CallPath;
import io.vertx.core.Future;
import java.util.Arrays;

/** A path that keeps the time of each of its calls, so that blocks timed apart can be pooled into one row. */
final class TimedPath implements CallPath {
  private final CallPath path;
  private long[] nanos = new long[1024];
  private int count;
  private boolean keeping;

  TimedPath(CallPath path) {
    this.path = path;
  }

  @Override
  public Future<Void> call() {
    long t0 = System.nanoTime();
    return path.call().onSuccess(v -> {
      if (keeping) {
        if (count == nanos.length) {
          nanos = Arrays.copyOf(nanos, count * 2);
        }
        nanos[count++] = System.nanoTime() - t0;
      }
    });
  }

  /** From now on (true) the calls' times are kept; the warm-up's are not. */
  Future<Void> keep(boolean on) {
    keeping = on;
    return Future.succeededFuture();
  }

  long[] samples() {
    return Arrays.copyOf(nanos, count);
  }
}
