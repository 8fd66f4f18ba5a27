package io.fleetbus.bench;

import io.fleetbus.bench.http.HubClient;
import io.fleetbus.bench.http.ToolCallPath;
import io.fleetbus.bench.load.Await;
import io.fleetbus.bench.load.Load;
import io.fleetbus.bench.load.LoadRunner;
import io.fleetbus.bench.load.Measured;
import io.fleetbus.bench.proc.CpuPerCall;
import io.fleetbus.bench.proc.ProcFs;
import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.report.Row;
import io.fleetbus.bench.ws.WebSocketPath;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Rows 2, 3, 4 (fleetbus side), 6 and 7 on one real hub JVM and one real node JVM: the HTTP tool-call
 * path, the WebSocket path (not built yet), run_command, the fan-out (with simulated nodes) and idle RSS.
 */
final class FleetBench {
  static final String NODE_ID = "bench-node";
  static final String HTTP_HEALTH = "http_health";
  static final String HTTP_NODE_LOOKUP = "http_node_lookup";
  static final String HTTP_LATENCY = "http_latency";
  static final String HTTP_THROUGHPUT = "http_throughput";
  static final String HTTP_STAGES = "http_stages";
  private static final int WARM_ROUNDS_MAX = 9;
  static final String HTTP_EDGE_LATENCY = "http_edge_latency";
  static final String EDGE_NODE_ID = "bench-edge";
  private static final int EDGE_PORT = io.fleetbus.bench.proc.Ports.free();
  static final String CPU_PER_CALL = "cpu_per_call";
  private static final String STAGES_PATH = "/api/v1/debug/stages";
  static final String WS_THROUGHPUT = "ws_throughput";
  static final String RUN_COMMAND = "run_command";
  static final String RUN_COMMAND_UNCONFINED = "run_command_unconfined";
  static final String CONFINEMENT_COST = "confinement_cost";
  /** The same node conf with kernel confinement off: what Landlock adds to a spawn, measured in the same run. */
  static final String UNCONFINED_NODE_ID = "bench-node-unconfined";

  private FleetBench() {
  }

  static List<Row> run(BenchSettings s, FleetLauncher launcher, ProcessGroup group, Vertx vertx) throws Exception {
    FleetLauncher.Cluster cluster = launcher.newCluster("fleet");
    // the hub also opens its edge endpoint: an edge node's call is measured beside the cluster node's
    FleetLauncher.RunningHub hub = launcher.startHub(cluster, Map.of("FLEETBUS_EDGE_PORT", Integer.toString(EDGE_PORT)));
    List<Row> rows = new ArrayList<>();
    FleetProcess node = null;
    FleetProcess unconfined = null;
    try (HubClient client = new HubClient(vertx, hub.httpPort(), hub.token(), s.httpThroughput().inFlight())) {
      String token = client.enrollmentToken(NODE_ID).toCompletionStage().toCompletableFuture()
        .get(s.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
      node = launcher.startNode(cluster, hub, NODE_ID, token);
      unconfined = launcher.startNode(cluster, hub, UNCONFINED_NODE_ID, client.enrollmentToken(UNCONFINED_NODE_ID)
        .toCompletionStage().toCompletableFuture().get(s.startTimeout().toMillis(), TimeUnit.MILLISECONDS),
        new JsonObject().put("confinement", new JsonObject().put("mode", "none").put("required", false)));
      // idle = both JVMs up, the node registered and its first heartbeat absorbed, no calls yet
      Await.firstAnswer(vertx, () -> firstHeartbeat(client), s.startTimeout());
      double hubIdle = ProcFs.rssMiB(hub.process().pid());
      double nodeIdle = ProcFs.rssMiB(node.pid());
      Progress.say("fleet: first heartbeat in; measuring HTTP and run_command");

      LoadRunner runner = new LoadRunner(vertx);
      ToolCallPath health = new ToolCallPath(client, NODE_ID, "get_agent_health", new JsonObject(),
        data -> data.getBoolean("registered", false));
      warmUntilSteady(runner, health, s);
      // two partial paths split the tool-call latency: HTTP alone, then HTTP + JWT check + one hub-local bus hop
      rows.add(Row.timed(HTTP_HEALTH, "HTTP: GET /health (no auth, no bus), 1 in flight",
        runner.measure(() -> client.get("/health").mapEmpty(), s.httpLatency()), "diagnostic: HTTP transport only"));
      rows.add(Row.timed(HTTP_NODE_LOOKUP, "HTTP: GET /api/v1/nodes/{node} (JWT check + 1 local bus hop), 1 in flight",
        runner.measure(() -> client.get("/api/v1/nodes/" + NODE_ID).mapEmpty(), s.httpLatency()),
        "diagnostic: adds the bearer-token check"));
      rows.add(Row.timed(HTTP_LATENCY, "HTTP: POST …/tools/get_agent_health, hub JVM → node JVM, 1 in flight",
        runner.measure(health, s.httpLatency(), () -> client.delete(STAGES_PATH)),
        "keep-alive Vert.x web client; answered after the audit group commit"));
      rows.add(Row.figures(HTTP_STAGES, "where the 1-in-flight HTTP call's time goes (p50 per stage)",
        Await.result(client.get(STAGES_PATH), s.startTimeout()), "stamps the hub and node take with -Dfleetbus.stages=true"));
      rows.add(edgeLatency(s, launcher, group, cluster, hub, client, runner, vertx));
      CpuPerCall cpu = new CpuPerCall(hub.process().pid(), node.pid());
      Measured loaded = runner.measure(health, s.httpThroughput(), cpu::start);
      rows.add(Row.timed(HTTP_THROUGHPUT, "HTTP: same, " + s.httpThroughput().inFlight() + " connections", loaded,
        s.httpThroughput().inFlight() + " keep-alive connections, 1 call each"));
      rows.add(cpu.row(CPU_PER_CALL, "CPU per call at " + s.httpThroughput().inFlight() + " connections", loaded.samples()));
      rows.add(webSocket(s, vertx, hub, runner));
      ToolCallPath echo = echo(client, NODE_ID);
      rows.add(Row.timed(RUN_COMMAND, "run_command `echo hi` via HTTP → hub → node, 1 in flight",
        runner.measure(echo, s.runCommand()), "hub conf tierOverrides {run_command: 2}: no human approval in the loop;"
          + " Landlock-confined (sudo strict), its own process group"));
      rows.add(Row.timed(RUN_COMMAND_UNCONFINED, "run_command `echo hi`, same, on a node with confinement: none",
        runner.measure(echo(client, UNCONFINED_NODE_ID), s.runCommand()),
        "compare run_command; the confinement_cost row times both in alternating blocks"));
      // both nodes are warm by now (each row above had its warm-up): a short one per block
      Load block = new Load(1, Math.min(20, s.runCommand().warmup()), Math.max(10, s.runCommand().count() / 2),
        s.runCommand().cap());
      rows.add(Row.figures(CONFINEMENT_COST, "run_command: kernel confinement on vs off (same fleet, same run)",
        AlternatingBlocks.compare(runner, echo, echo(client, UNCONFINED_NODE_ID), block, 4),
        "two nodes of one conf but confinement; blocks alternate A B A B, median of block p50s"));
      rows.add(SshBench.sameRun(s, group, vertx, runner, echo));

      rows.add(trustCost(s, launcher, group, vertx, client));
      FleetProcess measuredNode = node;
      rows.addAll(FanOutBench.run(s, launcher, group, cluster, vertx, hub, () -> List.of(
        Row.figures("rss_hub", "idle RSS: hub JVM", new JsonObject().put("idleMiB", round(hubIdle))
          .put("afterLoadMiB", round(ProcFs.rssMiB(hub.process().pid()))), "VmRSS; after load = after every row above"),
        Row.figures("rss_node", "idle RSS: node JVM", new JsonObject().put("idleMiB", round(nodeIdle))
          .put("afterLoadMiB", round(ProcFs.rssMiB(measuredNode.pid()))), "VmRSS"))));
      return rows;
    } finally {
      if (node != null) {
        group.stop(node);
      }
      if (unconfined != null) {
        group.stop(unconfined);
      }
      group.stop(hub.process());
    }
  }

  /**
   * A hub and a node run for days: the rows time a compiled call path, not the JIT's first minutes. The throughput
   * load, untimed, in rounds until two rounds in a row do not beat the best before them by 5 % (one slow round on a
   * noisy machine does not end it; at most {@value #WARM_ROUNDS_MAX} rounds of about 7,000 calls in full). The smoke
   * run takes one round.
   */
  static void warmUntilSteady(LoadRunner runner, ToolCallPath health, BenchSettings s)
    throws InterruptedException {
    double best = 0;
    int flat = 0;
    for (int round = 1; round <= (s.isSmoke() ? 1 : WARM_ROUNDS_MAX) && flat < 2; round++) {
      double perSecond = runner.measure(health, s.httpThroughput()).perSecond();
      Progress.say(String.format("warm-up round %d: %.0f calls/s", round, perSecond));
      flat = perSecond < best * 1.05 ? flat + 1 : 0;
      best = Math.max(best, perSecond);
    }
  }

  /** Row 3: the same health call, pipelined on one socket of the WebSocket API, as many in flight as the HTTP row. */
  private static Row webSocket(BenchSettings s, Vertx vertx, FleetLauncher.RunningHub hub, LoadRunner runner)
    throws Exception {
    WebSocketPath ws = WebSocketPath.connect(vertx, hub.httpPort(), hub.token(), NODE_ID, "get_agent_health",
        new JsonObject(), data -> data.getBoolean("registered", false))
      .toCompletionStage().toCompletableFuture().get(s.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
    try (ws) {
      return Row.timed(WS_THROUGHPUT, "WebSocket: same call, " + s.httpThroughput().inFlight() + " pipelined on one socket",
        runner.measure(ws, s.httpThroughput()), "one socket, " + s.httpThroughput().inFlight() + " calls in flight, stream: false");
    }
  }

  private static Row trustCost(BenchSettings s, FleetLauncher launcher, ProcessGroup group, Vertx vertx, HubClient client) {
    try {
      return TrustCostBench.run(s, launcher, group, vertx, client);
    } catch (Exception e) {
      return Row.failed(TrustCostBench.ROW, "HTTP tool call: cluster trust on vs off", String.valueOf(e.getMessage()));
    }
  }

  private static ToolCallPath echo(HubClient client, String nodeId) {
    return new ToolCallPath(client, nodeId, "run_command", new JsonObject().put("command", "echo hi"),
      data -> "hi".equals(data.getString("stdout", "").strip()) && Integer.valueOf(0).equals(data.getInteger("exitCode")));
  }

  /**
   * Issue 20: the same call to an edge node (no cluster membership; one TLS link to the hub's edge endpoint, the hub's
   * certificate pinned from the enrollment answer), warmed until steady like the cluster node, then 1 in flight; the node
   * is stopped after the row.
   */
  private static Row edgeLatency(BenchSettings s, FleetLauncher launcher, ProcessGroup group,
                                 FleetLauncher.Cluster cluster, FleetLauncher.RunningHub hub, HubClient client,
                                 LoadRunner runner, Vertx vertx) throws Exception {
    JsonObject enrollment = Await.result(client.enrollment(EDGE_NODE_ID), s.startTimeout());
    FleetProcess edge = launcher.startNode(cluster, hub, EDGE_NODE_ID, enrollment.getString("token"), new JsonObject()
      .put("transport", "edge").put("edge", new JsonObject().put("hubs", new io.vertx.core.json.JsonArray()
        .add(enrollment.getString("edgeEndpoint"))).put("certSha256", enrollment.getString("edgeCertSha256"))));
    try {
      ToolCallPath call = new ToolCallPath(client, EDGE_NODE_ID, "get_agent_health", new JsonObject(),
        data -> data.getBoolean("registered", false));
      Await.firstAnswer(vertx, call, s.startTimeout());
      // the edge node's JVM has just started: warmed as the cluster node was, so the row times a compiled path (500
      // warm-up calls on a fresh JVM left most of the 3.3 ms of stop 41's row to the JIT; warmed alike, the edgecall
      // phase measured the edge call 0.28 ms over the cluster one)
      warmUntilSteady(runner, call, s);
      return Row.timed(HTTP_EDGE_LATENCY, "HTTP: same call to an edge node (TLS link to the hub, no cluster), 1 in flight",
        runner.measure(call, s.httpLatency()), "issue 20: the node links to the hub's edge endpoint");
    } finally {
      group.stop(edge);
    }
  }

  private static Future<Void> firstHeartbeat(HubClient client) {
    return client.get("/api/v1/nodes/" + NODE_ID).compose(n -> n.getValue("lastHeartbeat") != null
      ? Future.succeededFuture() : Future.failedFuture("no heartbeat yet"));
  }

  static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
