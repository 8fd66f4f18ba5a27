package io.fleetbus.node;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.atomic.AtomicReference;

/** A clock the test moves by hand: schedules and stall checks see exactly the time the test sets. */
public final class TestClock extends Clock {
  private final AtomicReference<Instant> now;
  private final ZoneId zone;

  public TestClock(Instant start, ZoneId zone) {
    this.now = new AtomicReference<>(start);
    this.zone = zone;
  }

  public void set(Instant instant) {
    now.set(instant);
  }

  public void advance(Duration d) {
    now.updateAndGet(t -> t.plus(d));
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  @Override
  public Clock withZone(ZoneId other) {
    return new TestClock(now.get(), other);
  }

  @Override
  public Instant instant() {
    return now.get();
  }
}
