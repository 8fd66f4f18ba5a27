package io.fleetbus.bench;

import java.time.Duration;

/** One line per step of a run, with the seconds since it started, so a slow step shows where it is. */
final class Progress {
  private static volatile long startNanos = System.nanoTime();

  private Progress() {
  }

  static void restart() {
    startNanos = System.nanoTime();
  }

  static void say(String what) {
    System.out.printf("[%4d s] %s%n", Duration.ofNanos(System.nanoTime() - startNanos).toSeconds(), what);
  }
}
