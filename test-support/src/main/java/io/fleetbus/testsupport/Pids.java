package io.fleetbus.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Whether a process that is not this JVM's child has died (tests of what a node leaves running). */
public final class Pids {
  private Pids() {
  }

  /**
   * True once {@code pid} is gone or a zombie (dead, waiting for whoever reaps orphans) within {@code ms}. Polled from
   * /proc: the death of a process that is not this JVM's child raises no event here.
   */
  public static boolean diesWithin(long pid, long ms) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    do {
      String stat;
      try {
        stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      } catch (IOException e) {
        return true;
      }
      if (stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z")) {
        return true;
      }
      Thread.sleep(10);
    } while (System.nanoTime() < deadline);
    return false;
  }
}
