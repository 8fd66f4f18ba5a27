package io.fleetbus.node.confine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetbus.node.tools.command.ProcessRunner;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the process grant adds to a spawn (the bench's confinement_cost budget is +1 ms p50): {@code echo} started
 * unconfined, confined with files only (before: no network, scope, limits or guards), and confined with the whole
 * grant (after: its prlimit in front, seccomp and scope in the kernel), in alternating blocks; the median of the block
 * p50s is printed for each, with the CPU the children used per spawn (getrusage: wall time on a shared machine is
 * mostly other people's load). Fails only past a generous bound: the figures are the point.
 */
@Timeout(300)
class SpawnCostTest {
  static final Set<String> PROGRAMS = Set.of("echo");
  static final int BLOCKS = 5;
  static final int PER_BLOCK = 30;

  @TempDir
  Path dir;

  @Test
  void theGrantAddsLittleToASpawn() throws Exception {
    assumeTrue(Landlock.abi() >= 6, "no Landlock ABI 6 on this kernel");
    List<Path> scope = List.of(dir);
    Confinement before = new Confinement(Confinement.Mode.STRICT, true, Landlock.abi(), scope, List.of(), List.of());
    Confinement after = grant(scope, ProcessGrant.Limits.DEFAULT);
    after.limitOwnFileSize(); // as the node does at start: the file-size limit inherited, no prlimit for it
    Confinement cpuLimited = grant(scope, new ProcessGrant.Limits(256, 10, 1024)); // a CPU limit below the timeout
    ProcessRunner[] runners = {
      new ProcessRunner(4096, ProcessTrees.get().around(Spawner.DIRECT)),
      new ProcessRunner(4096, ProcessTrees.get().around(before.spawner(() -> PROGRAMS))),
      new ProcessRunner(4096, ProcessTrees.get().around(after.spawner(() -> PROGRAMS))),
      new ProcessRunner(4096, ProcessTrees.get().around(cpuLimited.spawner(() -> PROGRAMS)))};
    String[] names = {"unconfined", "files only (before)", "whole grant (after)", "with prlimit (cpu 10 s)"};
    double[][] p50s = new double[runners.length][BLOCKS];
    double[][] cpu = new double[runners.length][BLOCKS];
    for (ProcessRunner r : runners) {
      assertEquals("x\n", r.run(List.of("echo", "x"), dir, 5000).getString("stdout")); // warm: launcher made
    }
    for (int b = 0; b < BLOCKS; b++) {
      for (int i = 0; i < runners.length; i++) {
        long cpu0 = childCpuMicros();
        p50s[i][b] = blockP50(runners[i]);
        cpu[i][b] = Math.round((childCpuMicros() - cpu0) / (double) PER_BLOCK) / 1000.0;
      }
    }
    double[] median = new double[runners.length];
    for (int i = 0; i < runners.length; i++) {
      median[i] = median(p50s[i]);
      System.out.printf("spawn cost: %-22s p50 %.2f ms (blocks %s), CPU of the child %.3f ms per spawn (blocks %s)%n",
        names[i], median[i], Arrays.toString(p50s[i]), median(cpu[i]), Arrays.toString(cpu[i]));
    }
    System.out.printf("spawn cost: the grant adds %.2f ms p50 (%.3f ms CPU) over files only; prlimit in front adds"
      + " %.3f ms CPU%n", median[2] - median[1], median(cpu[2]) - median(cpu[1]), median(cpu[3]) - median(cpu[2]));
    assertTrue(median(cpu[2]) - median(cpu[1]) < 5, "the grant adds " + (median(cpu[2]) - median(cpu[1]))
      + " ms of CPU to a spawn");
  }

  interface C extends com.sun.jna.Library {
    int getrusage(int who, com.sun.jna.Pointer usage);
  }

  static final C LIBC = com.sun.jna.Native.load("c", C.class);

  /**
   * User + system CPU of this process's waited-for children (getrusage RUSAGE_CHILDREN), in µs: what a spawn costs
   * in CPU whatever the machine's load does to wall time.
   */
  static long childCpuMicros() {
    com.sun.jna.Memory ru = new com.sun.jna.Memory(144);
    LIBC.getrusage(-1, ru);
    return ru.getLong(0) * 1_000_000 + ru.getLong(8) + ru.getLong(16) * 1_000_000 + ru.getLong(24);
  }

  static Confinement grant(List<Path> scope, ProcessGrant.Limits limits) {
    return new Confinement(Confinement.Mode.STRICT, true, Landlock.abi(), scope, List.of(), List.of(),
      new ProcessGrant(ProcessGrant.Network.DEFAULT, true, limits, true, ProcessGrant.Capabilities.ALL));
  }

  private double blockP50(ProcessRunner r) throws Exception {
    double[] ms = new double[PER_BLOCK];
    for (int i = 0; i < PER_BLOCK; i++) {
      long t0 = System.nanoTime();
      r.run(List.of("echo", "x"), dir, 5000);
      ms[i] = (System.nanoTime() - t0) / 1e6;
    }
    return median(ms);
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return Math.round(s[s.length / 2] * 100) / 100.0;
  }
}
