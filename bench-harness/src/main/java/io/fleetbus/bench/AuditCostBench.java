package io.fleetbus.bench;

import io.fleetbus.bench.http.HubClient;
import io.fleetbus.bench.http.ToolCallPath;
import io.fleetbus.bench.load.LoadRunner;
import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.report.Row;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What answering after the audit commit costs (issue 21): the two HTTP tool-call rows again, on a fresh hub
 * whose audit writer acknowledges before it commits ({@code FLEETBUS_AUDIT_ANSWER_AFTER_COMMIT=false}, the
 * behaviour before). Compare with {@code http_latency} / {@code http_throughput} of the same run, which answer
 * only after the group commit.
 */
final class AuditCostBench {
  static final String HTTP_LATENCY = "http_latency_audit_after_answer";
  static final String HTTP_THROUGHPUT = "http_throughput_audit_after_answer";
  private static final String NODE_ID = "audit-node";

  private AuditCostBench() {
  }

  static List<Row> run(BenchSettings s, FleetLauncher launcher, ProcessGroup group, Vertx vertx) throws Exception {
    FleetLauncher.Cluster cluster = launcher.newCluster("audit");
    FleetLauncher.RunningHub hub = launcher.startHub(cluster, Map.of("FLEETBUS_AUDIT_ANSWER_AFTER_COMMIT", "false"));
    FleetProcess node = null;
    try (HubClient client = new HubClient(vertx, hub.httpPort(), hub.token(), s.httpThroughput().inFlight())) {
      String token = client.enrollmentToken(NODE_ID).toCompletionStage().toCompletableFuture()
        .get(s.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
      node = launcher.startNode(cluster, hub, NODE_ID, token);
      LoadRunner runner = new LoadRunner(vertx);
      ToolCallPath health = new ToolCallPath(client, NODE_ID, "get_agent_health", new JsonObject(),
        data -> data.getBoolean("registered", false));
      // as warm as the main fleet when its latency row was taken
      FleetBench.warmUntilSteady(runner, health, s);
      String before = "audit acknowledged before its commit (as before issue 21); compare ";
      return List.of(
        Row.timed(HTTP_LATENCY, "HTTP: POST …/tools/get_agent_health, answer before the audit commit, 1 in flight",
          runner.measure(health, s.httpLatency()), before + FleetBench.HTTP_LATENCY),
        Row.timed(HTTP_THROUGHPUT, "HTTP: same, answer before the audit commit, " + s.httpThroughput().inFlight()
          + " connections", runner.measure(health, s.httpThroughput()), before + FleetBench.HTTP_THROUGHPUT));
    } finally {
      if (node != null) {
        group.stop(node);
      }
      group.stop(hub.process());
    }
  }
}
