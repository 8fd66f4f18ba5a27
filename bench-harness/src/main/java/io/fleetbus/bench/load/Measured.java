package io.fleetbus.bench.load;

/** What one measured run gave: latency percentiles, calls per second, and how many calls were warm-up. */
public record Measured(LatencyStats stats, double perSecond, long warmup, long samples, int inFlight) {
}
