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
 * p50s is printed for each. Fails only past a generous bound (the machine is shared): the figure is the point.
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
    Confinement after = new Confinement(Confinement.Mode.STRICT, true, Landlock.abi(), scope, List.of(), List.of(),
      new ProcessGrant(ProcessGrant.Network.DEFAULT, true, ProcessGrant.Limits.DEFAULT, true,
        ProcessGrant.Capabilities.ALL));
    ProcessRunner[] runners = {
      new ProcessRunner(4096, ProcessTrees.get().around(Spawner.DIRECT)),
      new ProcessRunner(4096, ProcessTrees.get().around(before.spawner(() -> PROGRAMS))),
      new ProcessRunner(4096, ProcessTrees.get().around(after.spawner(() -> PROGRAMS)))};
    String[] names = {"unconfined", "files only (before)", "whole grant (after)"};
    double[][] p50s = new double[runners.length][BLOCKS];
    for (ProcessRunner r : runners) {
      assertEquals("x\n", r.run(List.of("echo", "x"), dir, 5000).getString("stdout")); // warm: launcher made
    }
    for (int b = 0; b < BLOCKS; b++) {
      for (int i = 0; i < runners.length; i++) {
        p50s[i][b] = blockP50(runners[i]);
      }
    }
    double[] median = new double[runners.length];
    for (int i = 0; i < runners.length; i++) {
      median[i] = median(p50s[i]);
      System.out.printf("spawn cost: %-22s p50 %.2f ms (blocks %s)%n", names[i], median[i], Arrays.toString(p50s[i]));
    }
    System.out.printf("spawn cost: the grant adds %.2f ms p50 over files only, %.2f ms over unconfined%n",
      median[2] - median[1], median[2] - median[0]);
    assertTrue(median[2] - median[1] < 10, "the grant adds " + (median[2] - median[1]) + " ms to a spawn");
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
