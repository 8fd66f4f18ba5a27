package io.fleetbus.node.tools.command;

import io.fleetbus.node.confine.Confinement;
import io.fleetbus.node.tools.CallControl;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The one door through which tools start host programs (journalctl, systemctl, nvidia-smi, rg, the
 * reboot command …). An unprivileged node starts no processes at all, so the door stays shut there.
 */
public final class HostCommands implements RunsPrograms {
  private final boolean spawningAllowed;
  private final ProcessRunner runner;
  private final List<Path> searchPath;
  private final Confinement confinement;

  public HostCommands(boolean spawningAllowed, ProcessRunner runner) {
    this(spawningAllowed, runner, pathFromEnvironment());
  }

  public HostCommands(boolean spawningAllowed, ProcessRunner runner, List<Path> searchPath) {
    this(spawningAllowed, runner, searchPath, Confinement.NONE);
  }

  /** @param confinement what the kernel lets the processes started here do (the runner starts them accordingly) */
  public HostCommands(boolean spawningAllowed, ProcessRunner runner, Confinement confinement) {
    this(spawningAllowed, runner, pathFromEnvironment(), confinement);
  }

  private HostCommands(boolean spawningAllowed, ProcessRunner runner, List<Path> searchPath, Confinement confinement) {
    this.spawningAllowed = spawningAllowed;
    this.runner = runner;
    this.searchPath = List.copyOf(searchPath);
    this.confinement = confinement;
  }

  public Confinement confinement() {
    return confinement;
  }

  public boolean spawningAllowed() {
    return spawningAllowed;
  }

  /** The program's location on PATH, if it is there and executable. */
  public Optional<Path> find(String program) {
    for (Path dir : searchPath) {
      Path p = dir.resolve(program);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * The program, or a 503 "not available on this node: …" when this node may not or cannot run it.
   * {@code forWhat} names the tool's purpose in the message.
   */
  public Path require(String program, String forWhat) {
    if (!spawningAllowed) {
      throw FailureCode.NO_ELIGIBLE_NODE.exception("not available on this node: " + forWhat + " needs " + program
        + ", and an unprivileged node starts no processes");
    }
    return find(program).orElseThrow(() -> FailureCode.NO_ELIGIBLE_NODE.exception("not available on this node: "
      + forWhat + " needs " + program + ", which is not installed (not found on PATH)"));
  }

  /** Runs argv (no shell) with the runner's caps; FORBIDDEN on an unprivileged node. */
  @Override
  public JsonObject run(List<String> argv, Path cwd, java.util.Map<String, String> env, long timeoutMs,
                        CallControl control) throws IOException, InterruptedException {
    mayStartProcesses();
    return runner.run(argv, cwd, env, timeoutMs, control);
  }

  /** Runs argv with its own per-stream cap (for tools whose output is parsed, not shown). */
  public JsonObject run(List<String> argv, long timeoutMs, int capBytes) throws IOException, InterruptedException {
    mayStartProcesses();
    return new ProcessRunner(capBytes, runner.spawner()).run(argv, null, timeoutMs);
  }

  /** Starts argv for a caller that streams its output itself (stdin closed, stderr discarded). */
  public Process start(List<String> argv) throws IOException {
    mayStartProcesses();
    Process p = runner.spawner().start(new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD));
    p.getOutputStream().close();
    return p;
  }

  private static List<Path> pathFromEnvironment() {
    String path = System.getenv("PATH");
    if (path == null || path.isBlank()) {
      path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    }
    return java.util.Arrays.stream(path.split(File.pathSeparator)).filter(s -> !s.isBlank()).map(Path::of).toList();
  }

  private void mayStartProcesses() {
    if (!spawningAllowed) {
      throw FailureCode.FORBIDDEN.exception("this node is unprivileged: it starts no processes");
    }
  }
}
