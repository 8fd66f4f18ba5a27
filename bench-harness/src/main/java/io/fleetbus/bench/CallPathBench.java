package io.fleetbus.bench;

import io.fleetbus.bench.floor.FloorPath;
import io.fleetbus.bench.http.HubClient;
import io.fleetbus.bench.http.ToolCallPath;
import io.fleetbus.bench.load.Await;
import io.fleetbus.bench.load.LoadRunner;
import io.fleetbus.bench.load.Measured;
import io.fleetbus.bench.proc.CpuPerCall;
import io.fleetbus.bench.proc.ProcFs;
import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.report.Row;
import io.fleetbus.bench.ws.WebSocketPath;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code callpath} phase (issue 37): only what the hub's CPU per call and the WebSocket row need, for A/B runs of
 * a change to the call path on a shared machine. The floor's throughput, then one hub and one node warmed until
 * steady as in the fleet phase, the 32-connection HTTP load with both JVMs' CPU per call, and the WebSocket row with
 * the same CPU figures. The full benchmark does not run it (its rows are the fleet phase's).
 */
final class CallPathBench {
  static final String WS_CPU_PER_CALL = "ws_cpu_per_call";

  private CallPathBench() {
  }

  static List<Row> run(BenchSettings s, FleetLauncher launcher, ProcessGroup group, Vertx vertx) throws Exception {
    List<Row> rows = new ArrayList<>();
    rows.add(floorThroughput(s, launcher, group));
    FleetLauncher.Cluster cluster = launcher.newCluster("callpath");
    FleetLauncher.RunningHub hub = launcher.startHub(cluster);
    FleetProcess node = null;
    try (HubClient client = new HubClient(vertx, hub.httpPort(), hub.token(), s.httpThroughput().inFlight())) {
      node = launcher.startNode(cluster, hub, FleetBench.NODE_ID,
        Await.result(client.enrollmentToken(FleetBench.NODE_ID), s.startTimeout()));
      LoadRunner runner = new LoadRunner(vertx);
      ToolCallPath health = new ToolCallPath(client, FleetBench.NODE_ID, "get_agent_health", new JsonObject(),
        data -> data.getBoolean("registered", false));
      Await.firstAnswer(vertx, health, s.startTimeout());
      FleetBench.warmUntilSteady(runner, health, s);
      double idleMsPerSecond = idleCpu(hub.process().pid());
      CpuPerCall cpu = new CpuPerCall(hub.process().pid(), node.pid());
      Measured loaded = runner.measure(health, s.httpThroughput(), cpu::start);
      rows.add(Row.timed(FleetBench.HTTP_THROUGHPUT, "HTTP: get_agent_health, " + s.httpThroughput().inFlight()
        + " connections", loaded, "keep-alive connections, 1 call each"));
      rows.add(lessIdle(cpu.row(FleetBench.CPU_PER_CALL, "CPU per call at " + s.httpThroughput().inFlight()
        + " connections", loaded.samples()), idleMsPerSecond, loaded.perSecond()));
      WebSocketPath ws = Await.result(WebSocketPath.connect(vertx, hub.httpPort(), hub.token(), FleetBench.NODE_ID,
        "get_agent_health", new JsonObject(), data -> data.getBoolean("registered", false)), s.startTimeout());
      try (ws) {
        CpuPerCall wsCpu = new CpuPerCall(hub.process().pid(), node.pid());
        Measured piped = runner.measure(ws, s.httpThroughput(), wsCpu::start);
        rows.add(Row.timed(FleetBench.WS_THROUGHPUT, "WebSocket: same call, " + s.httpThroughput().inFlight()
          + " pipelined on one socket", piped, "one socket, stream: false"));
        rows.add(lessIdle(wsCpu.row(WS_CPU_PER_CALL, "CPU per WebSocket call", piped.samples()), idleMsPerSecond,
          piped.perSecond()));
      }
      return rows;
    } finally {
      if (node != null) {
        group.stop(node);
      }
      group.stop(hub.process());
    }
  }

  /**
   * The hub's own CPU with no call in flight (heartbeats, Hazelcast's housekeeping), in ms per second over 5 s: on a
   * machine so loaded that the rows do a few hundred calls/s, that share of CPU per call is not the calls'.
   */
  private static double idleCpu(long hubPid) throws InterruptedException {
    double before = ProcFs.cpuSeconds(hubPid);
    long start = System.nanoTime();
    Thread.sleep(IDLE_WINDOW_MS); // a measurement window (the hub idle), not a wait for readiness
    return (ProcFs.cpuSeconds(hubPid) - before) * 1000 / ((System.nanoTime() - start) / 1e9);
  }

  private static final long IDLE_WINDOW_MS = 5_000;

  /** The row with the hub's CPU per call less its idle CPU over the calls' time ({@link #idleCpu}). */
  private static Row lessIdle(Row row, double idleMsPerSecond, double callsPerSecond) {
    double perCall = row.figures().getDouble("hubCpuMsPerCall") - idleMsPerSecond / callsPerSecond;
    return row.withFigures(row.figures().copy().put("hubIdleCpuMsPerSecond", Math.round(idleMsPerSecond * 10) / 10.0)
      .put("hubCpuMsPerCallLessIdle", Math.round(perCall * 1000) / 1000.0));
  }

  /** The floor's throughput row alone (its latency rounds are the floor phase's). */
  private static Row floorThroughput(BenchSettings s, FleetLauncher launcher, ProcessGroup group) throws Exception {
    FleetLauncher.Cluster cluster = launcher.newCluster("callpath-floor");
    FleetProcess server = launcher.startFloorServer(cluster);
    ClusterLauncher.Member client = Await.result(ClusterLauncher.start(launcher.clusterConf(cluster), true),
      s.startTimeout());
    try {
      FloorPath path = new FloorPath(client.vertx());
      Await.firstAnswer(client.vertx(), path, s.startTimeout());
      return Row.timed(FloorBench.THROUGHPUT, "floor: clustered event-bus request/reply, "
        + s.floorThroughput().inFlight() + " in flight", new LoadRunner(client.vertx()).measure(path, s.floorThroughput()),
        "~" + path.payloadBytes() + " B JSON");
    } finally {
      Await.result(client.vertx().close(), Duration.ofSeconds(30));
      group.stop(server);
    }
  }
}
