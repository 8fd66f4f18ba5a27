package io.fleetbus.bench;

import io.fleetbus.bench.http.HubClient;
import io.fleetbus.bench.load.Await;
import io.fleetbus.bench.proc.HeapProbe;
import io.fleetbus.bench.proc.ProcFs;
import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.report.Row;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Row 5, heartbeat scale: a fresh hub and one simulator JVM whose nodes grow step by step (1,000, 10,000, then
 * 50,000 for issue 17; the scale hub runs with -Xmx1g, the setting docs/operating.md gives for a hub of 50,000 nodes). Per step: hub CPU over whole heartbeat cycles, heartbeats per second, the hub's own view of
 * who is online and fresh, heap after a full GC, and how long after its last heartbeat a silenced node
 * is declared offline.
 */
final class ScaleBench {
  private static final Pattern NUMBER = Pattern.compile("(\\w+): (\\d+)");

  private ScaleBench() {
  }

  static List<Row> run(BenchSettings s, FleetLauncher launcher, ProcessGroup group, Vertx vertx) throws Exception {
    FleetLauncher.Cluster cluster = launcher.newCluster("scale");
    FleetLauncher.RunningHub hub = launcher.startHub(cluster);
    FleetProcess sim = launcher.startSimulator(cluster, hub);
    List<Row> rows = new ArrayList<>();
    try (HubClient client = new HubClient(vertx, hub.httpPort(), hub.token(), 1)) {
      double idle = idleCpuPercent(hub, s.heartbeatMs());
      int total = 0;
      String failed = null;
      for (int n : s.scaleSteps()) {
        if (failed != null) {
          rows.add(Row.failed("heartbeat_" + n, "heartbeat scale: " + n + " simulated nodes", "not tried: " + failed));
          continue;
        }
        try {
          rows.add(step(s, hub, sim, client, total, n, idle, "hb", "", "heartbeat_" + n,
            "heartbeat scale: " + n + " simulated nodes"));
          total = n;
        } catch (Exception | AssertionError e) {
          // the steps already measured stand; a larger one that fails says where the hub stopped keeping up
          String reason = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse(e.toString());
          Progress.say("scale: " + n + " nodes FAILED: " + reason);
          rows.add(Row.failed("heartbeat_" + n, "heartbeat scale: " + n + " simulated nodes", reason));
          failed = "the " + n + "-node step failed";
        }
      }
      return rows;
    } finally {
      group.stop(sim);
      group.stop(hub.process());
    }
  }

  /**
   * Issue 20: the same measure for edge nodes: a fresh hub with its edge endpoint, and as many simulated nodes as the
   * first scale step ({@link BenchSettings#edgeNodes()}), each on its own TLS link to the endpoint (its hello and heartbeats over the link).
   */
  static List<Row> runEdge(BenchSettings s, FleetLauncher launcher, ProcessGroup group, Vertx vertx) throws Exception {
    FleetLauncher.Cluster cluster = launcher.newCluster("edge-scale");
    int edgePort = io.fleetbus.bench.proc.Ports.free();
    FleetLauncher.RunningHub hub = launcher.startHub(cluster, java.util.Map.of("FLEETBUS_EDGE_PORT",
      Integer.toString(edgePort)));
    FleetProcess sim = launcher.startSimulator(cluster, hub);
    try (HubClient client = new HubClient(vertx, hub.httpPort(), hub.token(), 1)) {
      double idle = idleCpuPercent(hub, s.heartbeatMs());
      int n = s.edgeNodes();
      return List.of(step(s, hub, sim, client, 0, n, idle, "edge", " 127.0.0.1:" + edgePort, edgeRow(n),
        "edge links: " + n + " simulated edge nodes, each on its own TLS link to one hub"));
    } finally {
      group.stop(sim);
      group.stop(hub.process());
    }
  }

  static String edgeRow(int n) {
    return "edge_links_" + n;
  }

  /** The hub's CPU (% of one core) over a window: with no node at all, its own background (cluster heartbeats, timers). */
  static double idleCpuPercent(FleetLauncher.RunningHub hub, long intervalMs) throws InterruptedException {
    double cpuStart = ProcFs.cpuSeconds(hub.process().pid());
    long startedAt = System.currentTimeMillis();
    Thread.sleep(intervalMs); // a measurement window, not a wait for readiness
    double seconds = (System.currentTimeMillis() - startedAt) / 1000.0;
    return round((ProcFs.cpuSeconds(hub.process().pid()) - cpuStart) / seconds * 100);
  }

  private static Row step(BenchSettings s, FleetLauncher.RunningHub hub, FleetProcess sim, HubClient client,
                          int before, int n, double idleCpu, String prefix, String edge, String rowId, String what)
    throws Exception {
    long interval = s.heartbeatMs();
    Duration cycleWait = Duration.ofMillis(interval * 3 + 30_000);
    int mark = sim.mark();
    sim.send("add " + (n - before) + " " + prefix + " false" + edge);
    FleetProcess.Line added = sim.awaitLine("added \\[count: " + (n - before) + ",", mark, s.startTimeout().multipliedBy(3));
    if (number(added, "failed") != 0) {
      throw new IllegalStateException("not every simulated node registered: " + added.text());
    }
    Progress.say("scale: " + n + " nodes registered; measuring over whole heartbeat cycles");

    // one whole cycle to settle (every node beating, the hub's heartbeat path compiled), then the window
    // spans whole heartbeat cycles
    FleetProcess.Line settled = sim.awaitLine("cycle \\[", added.next(), cycleWait);
    FleetProcess.Line start = sim.awaitLine("cycle \\[", settled.next(), cycleWait);
    double cpuStart = ProcFs.cpuSeconds(hub.process().pid());
    long cpuStartAt = System.currentTimeMillis();

    String silenced = String.format("%s-%05d", prefix, n);
    int hubMark = hub.process().mark();
    int simMark = sim.mark();
    sim.send("silence " + silenced);
    long lastBeatAt = number(sim.awaitLine("silenced \\[node: " + silenced + ",", simMark, cycleWait), "lastBeatAt");
    FleetProcess.Line offline = hub.process().awaitLine(FleetLauncher.offlineLine(silenced), hubMark,
      Duration.ofMillis(interval * 5 + 30_000));

    FleetProcess.Line end = start;
    for (int cycles = 0; cycles < s.scaleCycles() || end.readAtMillis() < offline.readAtMillis(); cycles++) {
      end = sim.awaitLine("cycle \\[", end.next(), cycleWait);
    }
    double cpuEnd = ProcFs.cpuSeconds(hub.process().pid());
    long cpuEndAt = System.currentTimeMillis();

    JsonArray nodes = Await.result(client.get("/api/v1/nodes"), Duration.ofSeconds(60)).getJsonArray("nodes");
    long now = System.currentTimeMillis();
    int online = 0;
    int fresh = 0;
    for (Object o : nodes) {
      JsonObject node = (JsonObject) o;
      online += node.getBoolean("online", false) ? 1 : 0;
      Long last = node.getLong("lastHeartbeat");
      fresh += last != null && now - last <= 2 * interval ? 1 : 0;
    }
    double heapMiB = HeapProbe.usedAfterGcMiB(hub.process().pid());

    // issue 17's hello storm: every node of the fleet says hello again at once, as all do when a hub restarts or joins
    // (cluster nodes, up to 10,000; the 50,000 step would mostly time the simulator signing its hellos)
    Long rehelloMs = null;
    if (edge.isEmpty() && n <= 10_000) {
      int stormMark = sim.mark();
      sim.send("rehello");
      FleetProcess.Line storm = sim.awaitLine("rehello \\[", stormMark, s.startTimeout().multipliedBy(3));
      if (number(storm, "failed") != 0) {
        throw new IllegalStateException("not every node's hello was answered: " + storm.text());
      }
      rehelloMs = number(storm, "ms");
      Progress.say("scale: " + n + " nodes said hello again in " + rehelloMs + " ms");
    }

    double windowSeconds = (cpuEndAt - cpuStartAt) / 1000.0;
    double beatsPerSecond = (number(end, "published") - number(start, "published"))
      / ((number(end, "at") - number(start, "at")) / 1000.0);
    JsonObject figures = new JsonObject()
      .put("nodes", n)
      .put("hubCpuPercentOfOneCore", round((cpuEnd - cpuStart) / windowSeconds * 100))
      .put("hubIdleCpuPercentOfOneCore", idleCpu)
      .put("hubHeapAfterGcMiB", round(heapMiB))
      .put("heartbeatsPerSecond", round(beatsPerSecond))
      .put("hubSeesOnline", online)
      .put("hubSeesFresh", fresh)
      .put("offlineAfterLastBeatMs", offline.readAtMillis() - lastBeatAt)
      .put("offlineConfiguredMs", 3 * interval)
      .put("windowSeconds", round(windowSeconds))
      .put("registerSeconds", round(number(added, "ms") / 1000.0))
      .put("helloStormSeconds", rehelloMs == null ? null : round(rehelloMs / 1000.0));
    return Row.figures(rowId, what + ", 1 beat / " + interval / 1000.0 + " s each", figures, "hub CPU over " + round(windowSeconds)
      + " s after one settling cycle; fresh = last beat ≤ 2 intervals old; offline = 3 missed intervals by config");
  }

  /** The number a harness process printed as {@code key: N} in this line. */
  static long number(FleetProcess.Line line, String key) {
    Matcher m = NUMBER.matcher(line.text());
    while (m.find()) {
      if (m.group(1).equals(key)) {
        return Long.parseLong(m.group(2));
      }
    }
    throw new IllegalStateException("no " + key + " in: " + line.text());
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
