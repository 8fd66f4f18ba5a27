package io.fleetbus.bench.proc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What Linux says about a process: CPU time used and resident memory (/proc/&lt;pid&gt;/stat and status). */
public final class ProcFs {
  /** USER_HZ: the unit of utime/stime in /proc/&lt;pid&gt;/stat; 100 on every Linux this runs on. */
  private static final double TICKS_PER_SECOND = 100.0;

  private ProcFs() {
  }

  /** User + system CPU seconds the process has used so far. */
  public static double cpuSeconds(long pid) {
    String stat = read(Path.of("/proc", Long.toString(pid), "stat"));
    // the command name may hold spaces and parentheses: fields are counted after the last ')'
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long utime = Long.parseLong(f[11]);
    long stime = Long.parseLong(f[12]);
    return (utime + stime) / TICKS_PER_SECOND;
  }

  /** Resident set size in MiB (VmRSS). */
  public static double rssMiB(long pid) {
    for (String line : read(Path.of("/proc", Long.toString(pid), "status")).split("\n")) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
      }
    }
    throw new IllegalStateException("no VmRSS for pid " + pid);
  }

  public static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + " (has the process ended?)", e);
    }
  }
}
