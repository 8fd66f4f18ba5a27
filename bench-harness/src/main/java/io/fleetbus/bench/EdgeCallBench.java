package io.fleetbus.bench;

import io.fleetbus.bench.http.HubClient;
import io.fleetbus.bench.http.ToolCallPath;
import io.fleetbus.bench.load.Await;
import io.fleetbus.bench.load.Load;
import io.fleetbus.bench.load.LoadRunner;
import io.fleetbus.bench.proc.Ports;
import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.report.Row;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code edgecall} phase (issue 37): the same call to a cluster node and to an edge node of one hub, both warmed
 * alike, timed in alternating blocks (A B A B …) so the edge path's cost over the cluster one is a same-run ratio on a
 * shared machine; then each path's per-stage breakdown (the hub's and node's stamps, -Dfleetbus.stages=true). The
 * full benchmark does not run it (its edge row is the fleet phase's).
 */
final class EdgeCallBench {
  static final String ROW = "edge_call_vs_cluster";
  static final String EDGE_STAGES = "http_edge_stages";
  static final String CLUSTER_STAGES = "http_cluster_stages";
  private static final String STAGES_PATH = "/api/v1/debug/stages";

  private EdgeCallBench() {
  }

  static List<Row> run(BenchSettings s, FleetLauncher launcher, ProcessGroup group, Vertx vertx) throws Exception {
    FleetLauncher.Cluster cluster = launcher.newCluster("edgecall");
    FleetLauncher.RunningHub hub = launcher.startHub(cluster, Map.of("FLEETBUS_EDGE_PORT", Integer.toString(Ports.free())));
    List<FleetProcess> nodes = new ArrayList<>();
    try (HubClient client = new HubClient(vertx, hub.httpPort(), hub.token(), s.httpThroughput().inFlight())) {
      nodes.add(launcher.startNode(cluster, hub, FleetBench.NODE_ID,
        Await.result(client.enrollmentToken(FleetBench.NODE_ID), s.startTimeout())));
      JsonObject enrollment = Await.result(client.enrollment(FleetBench.EDGE_NODE_ID), s.startTimeout());
      nodes.add(launcher.startNode(cluster, hub, FleetBench.EDGE_NODE_ID, enrollment.getString("token"), new JsonObject()
        .put("transport", "edge").put("edge", new JsonObject().put("hubs", new JsonArray()
          .add(enrollment.getString("edgeEndpoint"))).put("certSha256", enrollment.getString("edgeCertSha256")))));
      LoadRunner runner = new LoadRunner(vertx);
      ToolCallPath onCluster = health(client, FleetBench.NODE_ID);
      ToolCallPath onEdge = health(client, FleetBench.EDGE_NODE_ID);
      Await.firstAnswer(vertx, onCluster, s.startTimeout());
      Await.firstAnswer(vertx, onEdge, s.startTimeout());
      // both paths compiled alike: the throughput load on each until steady
      FleetBench.warmUntilSteady(runner, onCluster, s);
      FleetBench.warmUntilSteady(runner, onEdge, s);
      Load block = new Load(1, 100, Math.max(50, s.httpLatency().count() / 4), s.httpLatency().cap());
      List<Row> rows = new ArrayList<>();
      rows.add(Row.figures(ROW, "HTTP get_agent_health, 1 in flight: edge node (on) vs cluster node (off), same hub",
        AlternatingBlocks.compare(runner, onEdge, onCluster, block, 6), "blocks alternate edge, cluster; median of block p50s"));
      rows.add(stages(s, client, runner, onEdge, EDGE_STAGES, "edge"));
      rows.add(stages(s, client, runner, onCluster, CLUSTER_STAGES, "cluster"));
      return rows;
    } finally {
      nodes.forEach(group::stop);
      group.stop(hub.process());
    }
  }

  private static Row stages(BenchSettings s, HubClient client, LoadRunner runner, ToolCallPath path, String id,
                            String which) throws Exception {
    Row timed = Row.timed(id, "HTTP get_agent_health to the " + which + " node, 1 in flight, per stage (p50)",
      runner.measure(path, s.httpLatency(), () -> client.delete(STAGES_PATH)), "stamps of -Dfleetbus.stages=true");
    return timed.withFigures(Await.result(client.get(STAGES_PATH), s.startTimeout()));
  }

  private static ToolCallPath health(HubClient client, String nodeId) {
    return new ToolCallPath(client, nodeId, "get_agent_health", new JsonObject(),
      data -> data.getBoolean("registered", false));
  }
}
