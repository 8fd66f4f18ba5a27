package io.fleetbus.bench.load;

import java.time.Duration;

/** How hard and how long to drive one path: calls in flight, untimed warm-up calls, timed calls, time cap per phase. */
public record Load(int inFlight, int warmup, int count, Duration cap) {

  public static Load of(int inFlight, int warmup, int count, int capSeconds) {
    return new Load(inFlight, warmup, count, Duration.ofSeconds(capSeconds));
  }
}
