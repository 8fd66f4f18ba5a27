package io.fleetbus.bench;

import io.fleetbus.bench.http.FanOutPath;
import io.fleetbus.bench.http.HubClient;
import io.fleetbus.bench.http.ToolCallPath;
import io.fleetbus.bench.load.Await;
import io.fleetbus.bench.load.LoadRunner;
import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.report.Row;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Row 6: get_system_info on every simulated node at once, one HTTP call per node (routing by labels does
 * not exist yet), timed until the last answer is in.
 */
final class FanOutBench {
  static final String FANOUT = "fanout";

  private FanOutBench() {
  }

  static Row run(BenchSettings s, FleetLauncher launcher, ProcessGroup group, FleetLauncher.Cluster cluster, Vertx vertx,
                 FleetLauncher.RunningHub hub) throws Exception {
    int n = s.fanOutNodes();
    FleetProcess sim = launcher.startSimulator(cluster, hub);
    try (HubClient client = new HubClient(vertx, hub.httpPort(), hub.token(), n)) {
      sim.send("add " + n + " fan true");
      String added = sim.awaitLine("added \\[count: " + n + ",", s.startTimeout()).text();
      if (!added.contains("failed: 0,")) {
        throw new IllegalStateException("not every simulated node registered: " + added);
      }
      // a node that enrolled is online (and routed to) from its first heartbeat; the simulator spreads them
      Await.firstAnswer(vertx, () -> client.get("/api/v1/nodes").compose(list -> {
        long online = list.getJsonArray("nodes").stream().map(JsonObject.class::cast)
          .filter(node -> node.getString("nodeId").startsWith("fan-") && node.getBoolean("online", false)).count();
        return online == n ? Future.<Void>succeededFuture() : Future.failedFuture(online + " of " + n + " online");
      }), s.startTimeout());
      Progress.say("fleet: " + n + " simulated nodes registered and online");
      List<ToolCallPath> calls = new ArrayList<>();
      for (int i = 1; i <= n; i++) {
        String nodeId = String.format("fan-%05d", i);
        calls.add(new ToolCallPath(client, nodeId, "get_system_info", new JsonObject(),
          data -> nodeId.equals(data.getString("hostname"))));
      }
      return Row.timed(FANOUT, "fan-out: get_system_info on " + n + " simulated nodes, all at once",
        new LoadRunner(vertx).measure(new FanOutPath(calls), s.fanOut()),
        "p50/p99 = time until all " + n + " answered; " + n + " concurrent HTTP calls");
    } finally {
      group.stop(sim);
    }
  }
}
