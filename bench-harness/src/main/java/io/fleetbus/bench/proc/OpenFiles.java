package io.fleetbus.bench.proc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Room for open files in a JVM the bench starts: each simulated node keeps its call journal open, as a real node does on
 * its own machine, so 50,000 of them in one simulator need more than the usual hard limit (20,000 here). Where that
 * limit is lower than needed and this process may raise it (root, {@code prlimit} present), the JVM runs under
 * {@code prlimit --nofile=N}; otherwise as it is, and a step that runs out says so in its row.
 */
public final class OpenFiles {
  private static final Path PRLIMIT = Path.of("/usr/bin/prlimit");

  private OpenFiles() {
  }

  public static List<String> wrapperFor(long needed) {
    long hard = hardLimit();
    if (hard >= needed || !Files.isExecutable(PRLIMIT) || !"root".equals(System.getProperty("user.name"))) {
      return List.of();
    }
    return List.of(PRLIMIT.toString(), "--nofile=" + needed + ":" + needed, "--");
  }

  /** This process's hard limit on open files (Linux /proc/self/limits); unlimited or unknown: Long.MAX_VALUE. */
  static long hardLimit() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
        if (line.startsWith("Max open files")) {
          String[] w = line.substring("Max open files".length()).trim().split("\\s+");
          return "unlimited".equals(w[1]) ? Long.MAX_VALUE : Long.parseLong(w[1]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return Long.MAX_VALUE;
    }
    return Long.MAX_VALUE;
  }
}
