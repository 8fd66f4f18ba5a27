package io.fleetbus.bench;

import io.fleetbus.bench.http.FanOutPath;
import io.fleetbus.bench.http.HubClient;
import io.fleetbus.bench.http.SelectorFanOutPath;
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
 * Row 6: get_system_info on every simulated node at once, one HTTP call per node, timed until the last answer is in.
 * Then (issue 17) the fleet grows to {@link BenchSettings#fanOutWide()} simulated nodes and one {@code POST
 * /api/v1/calls} by labels ({@code mode: all}, all at once) runs it on every one of them.
 */
final class FanOutBench {
  static final String FANOUT = "fanout";
  static final String FANOUT_WIDE = "fanout_selector";

  private FanOutBench() {
  }

  /** @param between rows taken after the per-node fan-out and before the fleet grows (the RSS after the load) */
  static List<Row> run(BenchSettings s, FleetLauncher launcher, ProcessGroup group, FleetLauncher.Cluster cluster,
                       Vertx vertx, FleetLauncher.RunningHub hub, java.util.function.Supplier<List<Row>> between)
    throws Exception {
    int n = s.fanOutNodes();
    FleetProcess sim = launcher.startSimulator(cluster, hub);
    try (HubClient client = new HubClient(vertx, hub.httpPort(), hub.token(), n)) {
      List<Row> rows = new ArrayList<>();
      grow(s, vertx, sim, client, n, n);
      rows.add(perNode(s, vertx, client, n));
      rows.addAll(between.get());
      int wide = s.fanOutWide();
      grow(s, vertx, sim, client, wide - n, wide);
      rows.add(Row.timed(FANOUT_WIDE, "fan-out by labels: get_system_info on " + wide + " simulated nodes, one call",
        new LoadRunner(vertx).measure(new SelectorFanOutPath(client, "get_system_info", new JsonObject().put("site", "sim"),
          wide), s.fanOutWideLoad()),
        "one POST /api/v1/calls {labels: {site: sim}, mode: all, maxConcurrency: " + wide + "}: p50/p99 = until the hub"
          + " answered with all " + wide + " results"));
      return rows;
    } finally {
      group.stop(sim);
    }
  }

  /** Adds {@code count} answering simulated nodes and returns once the hub sees {@code online} of them online. */
  private static void grow(BenchSettings s, Vertx vertx, FleetProcess sim, HubClient client, int count, int online)
    throws Exception {
    int mark = sim.mark();
    sim.send("add " + count + " fan true");
    String added = sim.awaitLine("added \\[count: " + count + ",", mark, s.startTimeout()).text();
    if (!added.contains("failed: 0,")) {
      throw new IllegalStateException("not every simulated node registered: " + added);
    }
    // a node that enrolled is online (and routed to) from its first heartbeat; the simulator spreads them
    Await.firstAnswer(vertx, () -> client.get("/api/v1/nodes").compose(list -> {
      long seen = list.getJsonArray("nodes").stream().map(JsonObject.class::cast)
        .filter(node -> node.getString("nodeId").startsWith("fan-") && node.getBoolean("online", false)).count();
      return seen == online ? Future.<Void>succeededFuture() : Future.failedFuture(seen + " of " + online + " online");
    }), s.startTimeout());
    Progress.say("fleet: " + online + " simulated nodes registered and online");
  }

  private static Row perNode(BenchSettings s, Vertx vertx, HubClient client, int n) throws Exception {
    List<ToolCallPath> calls = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      String nodeId = String.format("fan-%05d", i);
      calls.add(new ToolCallPath(client, nodeId, "get_system_info", new JsonObject(),
        data -> nodeId.equals(data.getString("hostname"))));
    }
    return Row.timed(FANOUT, "fan-out: get_system_info on " + n + " simulated nodes, all at once",
      new LoadRunner(vertx).measure(new FanOutPath(calls), s.fanOut()),
      "p50/p99 = time until all " + n + " answered; " + n + " concurrent HTTP calls");
  }
}
