package io.fleetbus.bench;

import io.fleetbus.bench.load.Await;
import io.fleetbus.bench.load.CallPath;
import io.fleetbus.bench.load.Load;
import io.fleetbus.bench.load.LoadRunner;
import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.report.Row;
import io.fleetbus.bench.ssh.CommandPath;
import io.fleetbus.bench.ssh.SshRig;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Optional;

/** Row 4, the ssh side: {@code echo hi} over ssh with a ControlMaster connection and over a fresh connection each time. */
final class SshBench {
  static final String MULTIPLEXED = "ssh_controlmaster";
  static final String PLAIN = "ssh_plain";
  /** run_command ÷ ssh ControlMaster timed in alternating blocks in the fleet phase: both under one machine state. */
  static final String RUN_COMMAND_VS_SSH = "run_command_vs_ssh";
  private static final int ROUNDS = 4;
  private static final String MULTIPLEXED_WHAT = "ssh -o ControlMaster=auto -o ControlPersist=60 localhost echo hi";
  private static final String PLAIN_WHAT = "ssh localhost echo hi (new connection each time)";

  private SshBench() {
  }

  static List<Row> run(BenchSettings s, ProcessGroup group, Vertx vertx) throws Exception {
    Optional<String> missing = SshRig.unavailableReason();
    if (missing.isPresent()) {
      return List.of(Row.notAvailable(MULTIPLEXED, MULTIPLEXED_WHAT, "skipped: " + missing.get()),
        Row.notAvailable(PLAIN, PLAIN_WHAT, "skipped: " + missing.get()));
    }
    SshRig rig = group.add(SshRig.start(s.work().resolve("ssh"), s.startTimeout()));
    try {
      LoadRunner runner = new LoadRunner(vertx);
      CommandPath multiplexed = new CommandPath(vertx, rig.multiplexed("echo", "hi"), "hi");
      // the first call opens the master connection; later ones reuse it
      Await.firstAnswer(vertx, multiplexed, s.startTimeout());
      String where = "own sshd on 127.0.0.1, ed25519 key, remote ~/.bashrc skipped; timed from spawning ssh to its exit";
      return List.of(
        Row.timed(MULTIPLEXED, MULTIPLEXED_WHAT, runner.measure(multiplexed, s.sshMultiplexed()), where),
        Row.timed(PLAIN, PLAIN_WHAT,
          runner.measure(new CommandPath(vertx, rig.plain("echo", "hi"), "hi"), s.sshPlain()), where));
    } finally {
      group.stop(rig);
    }
  }

  /**
   * run_command {@code echo hi} ({@code runCommand}, warm) against ssh ControlMaster {@code echo hi}, in alternating
   * blocks (A B A B) inside the fleet phase: the separate rows are timed minutes apart (fleet phase, then ssh phase), and
   * on a shared machine the fleet's path — about ten hand-offs between threads of two JVMs — slows far more under load
   * than ssh's (stop 41: run_command 13.3 ms in its row, 9.4 ms in the confinement blocks of the same phase). Figures as
   * {@link AlternatingBlocks} ("on" = run_command, "off" = ssh) plus {@code ratio} = on ÷ off.
   */
  static Row sameRun(BenchSettings s, ProcessGroup group, Vertx vertx, LoadRunner runner, CallPath runCommand)
    throws Exception {
    String what = "run_command `echo hi` ÷ ssh ControlMaster `echo hi`, alternating blocks, same phase";
    Optional<String> missing = SshRig.unavailableReason();
    if (missing.isPresent()) {
      return Row.notAvailable(RUN_COMMAND_VS_SSH, what, "skipped: " + missing.get());
    }
    SshRig rig = group.add(SshRig.start(s.work().resolve("ssh-fleet"), s.startTimeout()));
    try {
      CommandPath ssh = new CommandPath(vertx, rig.multiplexed("echo", "hi"), "hi");
      Await.firstAnswer(vertx, ssh, s.startTimeout());
      Load block = new Load(1, 5, Math.max(10, s.sshMultiplexed().count() / 2), s.runCommand().cap());
      JsonObject f = AlternatingBlocks.compare(runner, runCommand, ssh, block, ROUNDS);
      f.put("ratio", Math.round(f.getDouble("onP50Ms") / f.getDouble("offP50Ms") * 1000) / 1000.0);
      return Row.figures(RUN_COMMAND_VS_SSH, what, f, "on = run_command (confined node), off = ssh; blocks alternate,"
        + " median of block p50s; the issue's ratio, taken under one machine state");
    } finally {
      group.stop(rig);
    }
  }
}
