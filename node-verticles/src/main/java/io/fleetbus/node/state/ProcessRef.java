package io.fleetbus.node.state;

import io.vertx.core.json.JsonObject;
import java.util.Optional;

/**
 * A saved reference to an operating-system process: its pid and the time it started. A pid alone
 * is not enough after a node restart, since the system may have given it to another program; the
 * start time tells the same process from a newcomer.
 */
public record ProcessRef(long pid, long startedAtMs) {
  /** Start times are derived from the boot time, which the system may shift slightly (clock adjustments). */
  private static final long START_TOLERANCE_MS = 2000;

  public static ProcessRef of(ProcessHandle handle) {
    long started = handle.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(-1L);
    return new ProcessRef(handle.pid(), started);
  }

  /** The same process, if it still runs. */
  public Optional<ProcessHandle> findLive() {
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(h -> {
      long started = h.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(-1L);
      return startedAtMs >= 0 && started >= 0 && Math.abs(started - startedAtMs) <= START_TOLERANCE_MS;
    });
  }

  public JsonObject toJson() {
    return new JsonObject().put("pid", pid).put("startedAtMs", startedAtMs);
  }

  public static ProcessRef fromJson(JsonObject json) {
    return json == null || json.getLong("pid") == null ? null
      : new ProcessRef(json.getLong("pid"), json.getLong("startedAtMs", -1L));
  }
}
