package io.fleetbus.bench.proc;

import java.util.ArrayList;
import java.util.List;

/** The processes of one run, so that every one of them is stopped at the end, however the run ends. */
public final class ProcessGroup implements AutoCloseable {
  private final List<AutoCloseable> running = new ArrayList<>();

  public synchronized <T extends AutoCloseable> T add(T process) {
    running.add(process);
    return process;
  }

  /** Stops one process now (it is no longer needed). */
  public void stop(AutoCloseable process) {
    synchronized (this) {
      running.remove(process);
    }
    closeQuietly(process);
  }

  /** Stops the rest, newest first. */
  @Override
  public void close() {
    List<AutoCloseable> all;
    synchronized (this) {
      all = new ArrayList<>(running);
      running.clear();
    }
    for (int i = all.size() - 1; i >= 0; i--) {
      closeQuietly(all.get(i));
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      System.err.println("could not stop a benchmark process: " + e);
    }
  }
}
