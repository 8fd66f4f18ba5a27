package io.fleetbus.node.jobs;

import java.util.Locale;

/** Where a job is in its life. The last four are final: a finished job never changes again. */
public enum JobStatus {
  PENDING, RUNNING,
  /** Running, but silent for longer than its stall timeout. */
  STALLED,
  COMPLETED, FAILED, CANCELLED,
  /** Stopped because it ran longer than its max_runtime_seconds. */
  TIMED_OUT;

  public boolean isFinal() {
    return ordinal() >= COMPLETED.ordinal();
  }

  public String json() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static JobStatus parse(String text) {
    return valueOf(text.toUpperCase(Locale.ROOT));
  }
}
