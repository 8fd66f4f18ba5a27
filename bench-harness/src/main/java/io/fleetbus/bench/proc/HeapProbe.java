package io.fleetbus.bench.proc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The live heap of another JVM after a full GC, through the JDK's jcmd (GC.run, then GC.heap_info). */
public final class HeapProbe {
  /** A heap or generation line of GC.heap_info: G1 prints one ("garbage-first heap"), Serial and Parallel two. */
  private static final Pattern USED = Pattern.compile("total\\s+(\\d+)K,\\s+used\\s+(\\d+)K");

  private HeapProbe() {
  }

  /** Heap used in MiB right after a full collection. */
  public static double usedAfterGcMiB(long pid) {
    jcmd(pid, "GC.run");
    String info = jcmd(pid, "GC.heap_info");
    Matcher m = USED.matcher(info);
    long usedKiB = 0;
    boolean found = false;
    while (m.find()) {
      usedKiB += Long.parseLong(m.group(2));
      found = true;
    }
    if (!found) {
      throw new IllegalStateException("cannot read the heap from jcmd GC.heap_info: " + info);
    }
    return usedKiB / 1024.0;
  }

  private static String jcmd(long pid, String command) {
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    try {
      Process p = new ProcessBuilder(List.of(jcmd, Long.toString(pid), command)).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("jcmd " + pid + " " + command + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + jcmd + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
