package io.fleetbus.node.jobs;

/** Decides from the clock whether a running job has gone silent for too long, or spoke again. */
final class StallDetector {
  enum Verdict { UNCHANGED, STALLED, RESUMED }

  private StallDetector() {
  }

  static Verdict check(JobStatus status, long lastOutputAtMs, long stallTimeoutMs, long nowMs) {
    boolean silent = nowMs - lastOutputAtMs >= stallTimeoutMs;
    if (status == JobStatus.RUNNING && silent) {
      return Verdict.STALLED;
    }
    if (status == JobStatus.STALLED && !silent) {
      return Verdict.RESUMED;
    }
    return Verdict.UNCHANGED;
  }
}
