package io.fleetbus.bench;

import io.fleetbus.bench.load.Await;
import io.fleetbus.bench.load.LoadRunner;
import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.report.Row;
import io.fleetbus.bench.ssh.CommandPath;
import io.fleetbus.bench.ssh.SshRig;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Optional;

/** Row 4, the ssh side: {@code echo hi} over ssh with a ControlMaster connection and over a fresh connection each time. */
final class SshBench {
  static final String MULTIPLEXED = "ssh_controlmaster";
  static final String PLAIN = "ssh_plain";
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
}
