package io.fleetbus.node.confine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.fleetbus.testsupport.Pids;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * No process a command starts outlives it: real processes. A background child is killed when its command ends; a
 * timeout kills the whole tree, a child that ignores SIGTERM included; a restarted node kills what its previous run
 * left by pid and start time, and never a process whose pid merely matches. (A node killed by SIGKILL taking its
 * trees with it is NodeKilledMidCallTest, with a real node process.)
 */
@Timeout(60)
class ProcessTreesTest {
  @TempDir
  Path dir;

  private static ProcessTrees trees() {
    ProcessTrees t = ProcessTrees.get();
    // with -Dfleetbus.fault.noTreeKill=true the tests run against untracked commands, and fail
    assumeTrue(t.prefix().isPresent() || FaultSwitch.NO_TREE_KILL.on(),
      "this machine has no setsid: commands run without a group of their own");
    return t;
  }

  @Test
  void aChildLeftInTheBackgroundDiesWhenItsCommandEnds() throws Exception {
    ProcessRunner runner = new ProcessRunner(4096, trees().around(Spawner.DIRECT));
    // the child closes the output pipes so the command's answer does not wait for it
    JsonObject r = runner.run(List.of("bash", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"), dir, 10_000);
    assertEquals(0, r.getInteger("exitCode"), r.encode());
    long child = Long.parseLong(r.getString("stdout").strip());
    assertTrue(Pids.diesWithin(child, 2000), "the background child " + child + " outlived its command");
  }

  /** The fix switched off in this JVM ({@link FaultSwitch#NO_TREE_KILL} by constructor): the same child lives on. */
  @Test
  void withTheTreeKillSwitchedOffABackgroundChildOutlivesItsCommand() throws Exception {
    trees();
    ProcessTrees off = ProcessTrees.standalone(FaultSwitches.of(FaultSwitch.NO_TREE_KILL));
    assertTrue(off.prefix().isEmpty() && off.watchdogPid().isEmpty(), "no group and no watchdog with the switch on");
    JsonObject r = new ProcessRunner(4096, off.around(Spawner.DIRECT))
      .run(List.of("bash", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"), dir, 10_000);
    long child = Long.parseLong(r.getString("stdout").strip());
    try {
      assertFalse(Pids.diesWithin(child, 500), "the background child died with the tree kill off");
    } finally {
      ProcessHandle.of(child).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  /**
   * The JDK makes its process reaper threads from the thread that starts a process: after confined commands ran, an
   * idle reaper may be one born in a launcher's Landlock domain, whose signal scope refuses to kill any other group.
   * The group kill must not run there (it ran there, and this child lived on; seen in CI as a flake of the test above).
   */
  @Test
  void aBackgroundChildDiesAlsoAfterConfinedCommandsRan() throws Exception {
    assumeTrue(Landlock.abi() >= 6, "no Landlock signal scoping on this kernel");
    Path data = dir.resolve("data");
    JsonObject conf = new JsonObject().put("paths", new JsonObject()
      .put("allow", new io.vertx.core.json.JsonArray().add(dir.toString()))
      .put("sandboxDir", dir.resolve("sandbox").toString()));
    io.fleetbus.node.settings.NodeSettings node = new io.fleetbus.node.settings.NodeSettings("trees", "i1", "sudo", new JsonObject(), data,
      1000, List.of("sleep"), 4096, 1000, io.fleetbus.node.settings.ToolSettings.fromConf(conf, data));
    Spawner confined = Confinement.of(node).spawner(() -> java.util.Set.of("sleep"));
    // more at once than the JDK has idle reapers: it makes new ones, from the confined launcher thread
    List<Process> running = new java.util.ArrayList<>();
    for (int i = 0; i < 12; i++) {
      running.add(confined.start(new ProcessBuilder("sleep", "0.3").directory(dir.toFile())));
    }
    for (Process p : running) {
      assertEquals(0, p.waitFor());
    }
    aChildLeftInTheBackgroundDiesWhenItsCommandEnds();
  }

  @Test
  void aTimeoutKillsTheWholeTreeEvenWhatIgnoresSigterm() throws Exception {
    ProcessRunner runner = new ProcessRunner(4096, trees().around(Spawner.DIRECT));
    Path pids = dir.resolve("pids");
    // a subshell that ignores SIGTERM starts a sleep after the runner took its snapshot of the tree at the timeout
    JsonObject r = runner.run(List.of("bash", "-c", "trap '' TERM; (trap '' TERM; sleep 0.5; sleep 60 >/dev/null 2>&1 &"
      + " echo $! > " + pids + "; wait) & sleep 60"), dir, 200);
    assertTrue(r.getBoolean("timedOut"), r.encode());
    long late = Long.parseLong(Files.readString(pids).strip());
    assertTrue(Pids.diesWithin(late, 2000), "the process " + late + " started after the timeout outlived its tree");
  }

  /**
   * The node process dies (its watchdog's pipe closes): a listed command dies with the child it sent out of its group
   * ({@code setsid}), and so does a command the node had started but not listed yet (it died between the spawn and the
   * listing: the race a loaded machine hit in NodeKilledMidCallTest), found by the mark in its environment; a process
   * without the mark lives on. Without the mark only the listed group died.
   */
  @Test
  void whatTheNodeStartedDiesWithItListedOrNotInItsGroupOrNot() throws Exception {
    trees();
    ProcessTrees node = ProcessTrees.standalone(FaultSwitches.active());
    assumeTrue(node.watchdogPid().isPresent(), "no bash for a watchdog");
    Path escaped = dir.resolve("escaped");
    Path unlistedChild = dir.resolve("unlisted-child");
    Process listed = node.around(Spawner.DIRECT).start(new ProcessBuilder("bash", "-c",
      "setsid sleep 60 >/dev/null 2>&1 & echo $! > " + escaped + "; exec sleep 60"));
    // started in the node's name (marked, a group of its own) but never listed with its watchdog
    ProcessBuilder pb = new ProcessBuilder(node.prefix().orElseThrow().toString(), "bash", "-c",
      "sleep 60 >/dev/null 2>&1 & echo $! > " + unlistedChild + "; exec sleep 60");
    node.mark(pb);
    Process unlisted = pb.start();
    Process stranger = new ProcessBuilder("sleep", "60").start();
    try {
      long escapedPid = awaitPid(escaped);
      long unlistedChildPid = awaitPid(unlistedChild);
      node.pipeClosedForTest();
      assertTrue(listed.waitFor(3, TimeUnit.SECONDS), "the listed command outlived its node");
      assertTrue(Pids.diesWithin(escapedPid, 3000), "its child that left the group (setsid) outlived the node");
      assertTrue(unlisted.waitFor(3, TimeUnit.SECONDS), "a command started but not yet listed outlived the node");
      assertTrue(Pids.diesWithin(unlistedChildPid, 3000), "that command's child outlived the node");
      assertTrue(stranger.isAlive(), "a process the node did not start was killed");
    } finally {
      listed.destroyForcibly();
      unlisted.destroyForcibly();
      stranger.destroyForcibly();
    }
  }

  /** A restarted node finds what its previous run started by that run's mark, and kills only that. */
  @Test
  void aRestartedNodeKillsWhatCarriesItsPreviousRunsMark() throws Exception {
    ProcessTrees t = trees();
    ProcessTrees previous = ProcessTrees.standalone(FaultSwitches.active());
    // as the previous run started it: a group of its own (setsid in front), its mark in the environment
    ProcessBuilder pb = new ProcessBuilder(previous.prefix().orElseThrow().toString(), "sleep", "60");
    previous.mark(pb);
    Process leftover = pb.start();
    Process stranger = new ProcessBuilder("sleep", "60").start();
    try {
      // what the previous run's ledger holds: its mark, and no listing (it died before it listed the command)
      Files.writeString(dir.resolve("process-trees"), "mark " + previous.tokenForTest() + "\n");
      assertEquals(1, t.ledgerIn(dir));
      assertTrue(leftover.waitFor(2, TimeUnit.SECONDS), "the leftover lives on");
      assertTrue(stranger.isAlive(), "a process without the mark was killed");
    } finally {
      leftover.destroyForcibly();
      stranger.destroyForcibly();
      previous.pipeClosedForTest();
    }
  }

  private static long awaitPid(Path file) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (Files.exists(file)) {
        String text = Files.readString(file).strip();
        if (!text.isEmpty()) {
          return Long.parseLong(text);
        }
      }
      Thread.sleep(10);
    }
    throw new AssertionError("no pid in " + file);
  }

  @Test
  void aRestartedNodeKillsWhatItsPreviousRunLeftAndNothingElse() throws Exception {
    ProcessTrees t = trees();
    Process leftover = new ProcessBuilder("sleep", "60").start();
    Process stranger = new ProcessBuilder("sleep", "60").start();
    try {
      String leftoverStart = ProcessTrees.startTime(leftover.pid());
      // the stranger's pid is in the ledger with another start time: a recycled pid, not ours
      Files.writeString(dir.resolve("process-trees"), "+ " + leftover.pid() + " " + leftoverStart + "\n"
        + "+ " + stranger.pid() + " 1\n" + "+ 999999999 5\n- 999999999\n");
      assertEquals(1, t.ledgerIn(dir));
      assertTrue(leftover.waitFor(2, TimeUnit.SECONDS), "the leftover lives on");
      assertTrue(stranger.isAlive(), "a process whose pid only matches was killed");
      assertFalse(Files.readString(dir.resolve("process-trees")).contains(" " + leftover.pid() + " "),
        "the ledger starts afresh");
    } finally {
      leftover.destroyForcibly();
      stranger.destroyForcibly();
    }
  }
}
