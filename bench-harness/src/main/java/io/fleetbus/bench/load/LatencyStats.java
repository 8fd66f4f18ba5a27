package io.fleetbus.bench.load;

import java.util.Arrays;

/** Percentiles of a set of latencies, in milliseconds. */
public record LatencyStats(double p50Ms, double p99Ms, double meanMs, double maxMs, int count) {

  /** Nearest-rank percentiles over nanosecond samples (the array is sorted in place). */
  public static LatencyStats of(long[] nanos, int count) {
    if (count == 0) {
      throw new IllegalArgumentException("no samples");
    }
    Arrays.sort(nanos, 0, count);
    double sum = 0;
    for (int i = 0; i < count; i++) {
      sum += nanos[i];
    }
    return new LatencyStats(ms(nanos[rank(0.50, count)]), ms(nanos[rank(0.99, count)]), ms(sum / count),
      ms(nanos[count - 1]), count);
  }

  private static int rank(double q, int count) {
    return Math.max(0, (int) Math.ceil(q * count) - 1);
  }

  private static double ms(double nanos) {
    return nanos / 1_000_000.0;
  }
}
