package io.fleetbus.bench;

import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.report.Results;
import io.fleetbus.bench.report.Row;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * One benchmark run, phase by phase so that each phase has the machine to itself: the floor, the
 * fleet (HTTP, WebSocket, run_command, fan-out, RSS), ssh, heartbeat scale. A phase that fails marks its
 * rows failed and the run goes on; every process started is stopped at the end.
 */
public final class BenchRun {
  private final BenchSettings settings;
  /** The phases to run; empty: all of them. */
  private final java.util.Set<String> only;

  private BenchRun(BenchSettings settings, java.util.Set<String> only) {
    this.settings = settings;
    this.only = only;
  }

  /** A phase's measurements; may throw, which fails the phase's rows. */
  @FunctionalInterface
  private interface Phase {
    List<Row> run() throws Exception;
  }

  public static Results run(BenchSettings settings, String command) throws IOException {
    return run(settings, command, java.util.Set.of());
  }

  /** Only the named phases (floor, fleet, audit, ssh, scale, edge-scale, …); an empty set runs them all. */
  public static Results run(BenchSettings settings, String command, java.util.Set<String> phases) throws IOException {
    return new BenchRun(settings, phases).run(command);
  }

  private Results run(String command) throws IOException {
    BenchSettings s = settings;
    Progress.restart();
    Results results = new Results(s.mode(), command, Results.machine(),
      // issue 3's heartbeat targets are for 10,000 nodes; larger steps are reported, not judged
      s.scaleSteps().stream().filter(n -> n <= 10_000).max(Comparator.naturalOrder()).orElse(0));
    deleteTree(s.work().resolve("data"));
    Path simulatorData = simulatorData(s.work());
    Vertx vertx = Vertx.vertx();
    ProcessGroup group = new ProcessGroup();
    // a harness stopped by a signal runs no finally block: its hook stops the processes and removes their data
    Thread stopAll = new Thread(() -> {
      group.close();
      removeSimulatorData(s, simulatorData);
    }, "bench-stop-processes");
    Runtime.getRuntime().addShutdownHook(stopAll);
    try {
      FleetLauncher launcher = new FleetLauncher(s, group, simulatorData);
      phase(results, "floor", List.of(FloorBench.LATENCY, FloorBench.DURABLE, FloorBench.DURABLE_HOP, FloorBench.RAW_FSYNC,
          FloorBench.THROUGHPUT),
        () -> FloorBench.run(s, launcher, group));
      phase(results, "fleet", List.of(FleetBench.HTTP_HEALTH, FleetBench.HTTP_NODE_LOOKUP, FleetBench.HTTP_LATENCY,
          FleetBench.HTTP_EDGE_LATENCY,
          FleetBench.HTTP_STAGES, FleetBench.HTTP_THROUGHPUT, FleetBench.CPU_PER_CALL, FleetBench.WS_THROUGHPUT, FleetBench.RUN_COMMAND, SshBench.RUN_COMMAND_VS_SSH, FanOutBench.FANOUT,
          "rss_hub", "rss_node", FanOutBench.FANOUT_WIDE),
        () -> FleetBench.run(s, launcher, group, vertx));
      phase(results, "audit", List.of(AuditCostBench.HTTP_LATENCY, AuditCostBench.HTTP_THROUGHPUT),
        () -> AuditCostBench.run(s, launcher, group, vertx));
      phase(results, "ssh", List.of(SshBench.MULTIPLEXED, SshBench.PLAIN), () -> SshBench.run(s, group, vertx));
      launcher.jvmFlags("scale", s.isSmoke() ? List.of() : List.of("-Xmx1g"));
      phase(results, "scale", s.scaleSteps().stream().map(n -> "heartbeat_" + n).toList(),
        () -> ScaleBench.run(s, launcher, group, vertx));
      // more edge links than the default row: the hub as large as the scale phase's (docs/operating.md, 50,000 nodes)
      launcher.jvmFlags("edge-scale", s.edgeNodes() > s.scaleSteps().get(0) ? List.of("-Xmx1g") : List.of());
      phase(results, "edge-scale", List.of(ScaleBench.edgeRow(s.edgeNodes())),
        () -> ScaleBench.runEdge(s, launcher, group, vertx));
      phase(results, "membership", MembershipBench.rowIds(s), () -> MembershipBench.run(s, launcher, group));
      if (only.contains("callpath")) {
        phase(results, "callpath", List.of(FloorBench.THROUGHPUT, FleetBench.HTTP_THROUGHPUT, FleetBench.CPU_PER_CALL,
          FleetBench.WS_THROUGHPUT, CallPathBench.WS_CPU_PER_CALL), () -> CallPathBench.run(s, launcher, group, vertx));
      }
      if (only.contains("edgecall")) {
        phase(results, "edgecall", List.of(EdgeCallBench.ROW, EdgeCallBench.EDGE_STAGES, EdgeCallBench.CLUSTER_STAGES),
          () -> EdgeCallBench.run(s, launcher, group, vertx));
      }
    } finally {
      group.close();
      removeSimulatorData(s, simulatorData);
      Runtime.getRuntime().removeShutdownHook(stopAll);
      vertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, java.util.concurrent.TimeUnit.SECONDS)
        .exceptionally(e -> null).join();
    }
    return results;
  }

  private void phase(Results results, String name, List<String> ids, Phase phase) {
    if (!only.isEmpty() && !only.contains(name)) {
      return;
    }
    progress(name + ": started");
    long t0 = System.nanoTime();
    try {
      results.add(phase.run());
      results.phaseTook(name, (System.nanoTime() - t0) / 1e9);
      progress(name + ": done");
      writeSoFar(results);
    } catch (Exception | AssertionError e) {
      results.phaseTook(name, (System.nanoTime() - t0) / 1e9);
      String reason = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse(e.toString());
      progress(name + ": FAILED (" + reason + "); logs under " + settings.work().resolve("logs"));
      e.printStackTrace();
      List<Row> failed = new ArrayList<>();
      ids.forEach(id -> failed.add(Row.failed(id, name + " phase", reason)));
      results.add(failed);
      writeSoFar(results);
    }
  }

  /**
   * The rows so far, after each phase: a run stopped from outside (bench.sh's time limit, a person) leaves what it
   * measured. The whole run writes the same file again at its end.
   */
  private void writeSoFar(Results results) {
    try {
      results.write(settings.results());
    } catch (IOException e) {
      progress("results so far not written: " + e.getMessage());
    }
  }

  private static void progress(String what) {
    Progress.say(what);
  }

  /**
   * Where the simulated nodes keep their trust files: memory (/dev/shm) when the machine has it, else the work
   * folder. Each node fsyncs them, as a real node does on its own machine; here that would be the hub's disk.
   */
  private static Path simulatorData(Path work) throws IOException {
    Path shm = Path.of("/dev/shm");
    if (Files.isDirectory(shm) && Files.isWritable(shm)) {
      removeStale(shm);
      return Files.createTempDirectory(shm, SHM_PREFIX + ProcessHandle.current().pid() + "-");
    }
    return work.resolve("data");
  }

  private static final String SHM_PREFIX = "fleetbus-bench-";

  /**
   * Folders left in memory by harnesses that were killed (SIGKILL runs no hook): named after the harness's pid, removed
   * when that process is gone.
   */
  static void removeStale(Path shm) {
    try (Stream<Path> dirs = Files.list(shm)) {
      for (Path dir : dirs.toList()) {
        String name = dir.getFileName().toString();
        if (!name.startsWith(SHM_PREFIX)) {
          continue;
        }
        String[] parts = name.substring(SHM_PREFIX.length()).split("-", 2);
        if (parts.length == 2 && parts[0].matches("\\d{1,18}") && ProcessHandle.of(Long.parseLong(parts[0])).isEmpty()) {
          deleteTree(dir);
          progress("removed a killed harness's simulator data: " + dir);
        }
      }
    } catch (IOException e) {
      progress("stale simulator data not checked: " + e.getMessage());
    }
  }

  private static void removeSimulatorData(BenchSettings s, Path simulatorData) {
    if (simulatorData.startsWith(s.work())) {
      return;
    }
    try {
      deleteTree(simulatorData);
    } catch (IOException e) {
      progress("simulator data not removed: " + simulatorData + " (" + e.getMessage() + ")");
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
