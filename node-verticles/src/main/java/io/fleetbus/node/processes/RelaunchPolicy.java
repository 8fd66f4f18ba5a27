package io.fleetbus.node.processes;

/**
 * How long to wait before relaunching a crashed process: {@code firstDelayMs}, doubled for each
 * earlier crash in a row that came before the process finished initialising (time_to_init), never
 * more than {@code maxDelayMs}.
 */
public record RelaunchPolicy(long firstDelayMs, long maxDelayMs) {
  public static final RelaunchPolicy DEFAULT = new RelaunchPolicy(1000, 60_000);

  public long delayMs(int earlierQuickCrashes) {
    return Math.min(maxDelayMs, firstDelayMs << Math.min(Math.max(earlierQuickCrashes, 0), 30));
  }
}
