package io.fleetbus.bench;

import io.fleetbus.bench.proc.HeapProbe;
import io.fleetbus.bench.proc.Ports;
import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.report.Row;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issue 20: what a machine costs the hub as a cluster member against as an edge link, at the same counts (25, 50,
 * 100). Cluster: real Vert.x/Hazelcast lite members, several per JVM ({@code LiteMembersMain}), joining a fresh hub as
 * nodes do (membership only, no fleetbus heartbeat). Edge: as many simulated edge nodes on their own TLS links to a
 * fresh hub's edge endpoint, enrolled and beating. Per count: how long the step's machines took to join, how long one
 * more takes alone, the hub's CPU (over a window after one settling window) and its heap after a full GC (and per
 * machine, against the hub with none), and how long after one machine leaves gracefully the fleet has settled: every
 * remaining member has heard (cluster), the hub has declared the node offline (edge, after its goodbye).
 */
final class MembershipBench {
  static final String CLUSTER = "cluster";
  static final String EDGE = "edge";
  private static final Pattern UUID = Pattern.compile("member: ([0-9a-f-]+)");

  private MembershipBench() {
  }

  static List<String> rowIds(BenchSettings s) {
    List<String> ids = new ArrayList<>();
    for (String kind : List.of(CLUSTER, EDGE)) {
      s.memberSteps().forEach(n -> ids.add(rowId(kind, n)));
    }
    return ids;
  }

  static String rowId(String kind, int n) {
    return "members_" + kind + "_" + n;
  }

  static List<Row> run(BenchSettings s, FleetLauncher launcher, ProcessGroup group) throws Exception {
    List<Row> rows = new ArrayList<>(cluster(s, launcher, group));
    rows.addAll(edge(s, launcher, group));
    return rows;
  }

  private static List<Row> cluster(BenchSettings s, FleetLauncher launcher, ProcessGroup group) throws Exception {
    FleetLauncher.Cluster cluster = launcher.newCluster("members");
    FleetLauncher.RunningHub hub = launcher.startHub(cluster);
    List<FleetProcess> jvms = new ArrayList<>();
    List<Row> rows = new ArrayList<>();
    try {
      Baseline base = baseline(s, hub);
      int total = 0;
      String apart = null;
      for (int n : s.memberSteps()) {
        if (apart != null) {
          rows.add(Row.failed(rowId(CLUSTER, n), n + " lite members", "not tried: " + apart));
          continue;
        }
        try {
          rows.add(clusterStep(s, launcher, cluster, hub, jvms, base, total, n));
          total = n;
        } catch (Exception | AssertionError e) {
          // a cluster that did not hold together at n members on this machine is a figure too: say so, go no further
          String reason = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse(e.toString());
          Progress.say("members: " + n + " lite members FAILED: " + reason);
          rows.add(Row.failed(rowId(CLUSTER, n), n + " lite members", reason));
          apart = "the cluster did not hold at " + n + " members";
        }
      }
      return rows;
    } finally {
      jvms.forEach(group::stop);
      group.stop(hub.process());
    }
  }

  private static Row clusterStep(BenchSettings s, FleetLauncher launcher, FleetLauncher.Cluster cluster,
                                 FleetLauncher.RunningHub hub, List<FleetProcess> jvms, Baseline base, int before, int n)
    throws Exception {
    long started = System.currentTimeMillis();
    for (int total = before; total < n; ) {
      if (total % s.membersPerJvm() == 0) {
        jvms.add(launcher.startMembers(cluster, "m" + jvms.size()));
      }
      int count = Math.min(s.membersPerJvm() - total % s.membersPerJvm(), n - total);
      join(s, jvms.get(jvms.size() - 1), count);
      total += count;
    }
    long allJoinedMs = System.currentTimeMillis() - started;
    wholeCluster(s, jvms, n + 1);
    Progress.say("members: " + n + " lite members joined in " + allJoinedMs + " ms; measuring");
    Load load = load(s, hub, base);
    FleetProcess last = jvms.get(jvms.size() - 1);
    long oneJoinMs = join(s, last, 1);
    int mark = last.mark();
    last.send("leave");
    FleetProcess.Line left = last.awaitLine("left \\[member: ", mark, s.startTimeout());
    String uuid = match(UUID, left.text());
    long leftAt = number(left, "at");
    long settled = leftAt;
    for (FleetProcess jvm : jvms) {
      int m = jvm.mark();
      jvm.send("seen " + uuid);
      FleetProcess.Line seen = jvm.awaitLine("seen \\[member: " + Pattern.quote(uuid), m, s.startTimeout());
      settled = Math.max(settled, number(seen, "lastAt"));
    }
    wholeCluster(s, jvms, n + 1);
    return row(CLUSTER, n, allJoinedMs, oneJoinMs, load, settled - leftAt,
      "lite members (" + s.membersPerJvm() + " per JVM), membership only",
      "joined: Vert.x clustered start + Hazelcast join + the node's two consumers, 5 at a time; settled: every other"
        + " member heard the graceful leave");
  }

  /** Every member sees the whole cluster (the hub and every lite member): none was split off. */
  private static void wholeCluster(BenchSettings s, List<FleetProcess> jvms, int expected) {
    for (FleetProcess jvm : jvms) {
      int mark = jvm.mark();
      jvm.send("size");
      FleetProcess.Line size = jvm.awaitLine("size \\[", mark, s.startTimeout());
      if (number(size, "min") != expected || number(size, "max") != expected) {
        throw new IllegalStateException("the cluster came apart: members of " + jvm.name() + " see " + size.text()
          + ", expected " + expected + " (the hub and every lite member)");
      }
    }
  }

  private static List<Row> edge(BenchSettings s, FleetLauncher launcher, ProcessGroup group) throws Exception {
    FleetLauncher.Cluster cluster = launcher.newCluster("members-edge");
    int edgePort = Ports.free();
    FleetLauncher.RunningHub hub = launcher.startHub(cluster, Map.of("FLEETBUS_EDGE_PORT", Integer.toString(edgePort)));
    FleetProcess sim = launcher.startSimulator(cluster, hub);
    String endpoint = " 127.0.0.1:" + edgePort;
    List<Row> rows = new ArrayList<>();
    try {
      Baseline base = baseline(s, hub);
      int online = 0;
      int named = 0;
      for (int n : s.memberSteps()) {
        long allJoinedMs = add(s, sim, n - online, endpoint);
        named += n - online;
        online = n;
        Progress.say("members: " + n + " edge links joined in " + allJoinedMs + " ms; measuring");
        Load load = load(s, hub, base);
        int hubMark = hub.process().mark();
        long oneJoinMs = add(s, sim, 1, endpoint);
        String extra = String.format("link-%05d", ++named);
        // online at its first heartbeat; only then does its leave turn into an offline the hub declares
        hubMark = hub.process().awaitLine(FleetLauncher.onlineLine(extra), hubMark,
          Duration.ofMillis(s.heartbeatMs() * 3)).next();
        int mark = sim.mark();
        sim.send("leave " + extra);
        FleetProcess.Line left = sim.awaitLine("left \\[node: " + Pattern.quote(extra) + ",", mark, s.startTimeout());
        if (left.contains("failed:")) {
          throw new IllegalStateException("the edge node's goodbye failed: " + left.text());
        }
        FleetProcess.Line offline = hub.process().awaitLine(FleetLauncher.offlineLine(extra), hubMark, s.startTimeout());
        rows.add(row(EDGE, n, allJoinedMs, oneJoinMs, load, offline.readAtMillis() - number(left, "at"),
          "edge links, enrolled, 1 beat / " + s.heartbeatMs() / 1000.0 + " s each",
          "joined: enrollment over HTTP + TLS link + proven hello; settled: the hub declared it offline after its goodbye"));
      }
      return rows;
    } finally {
      group.stop(sim);
      group.stop(hub.process());
    }
  }

  /** The hub with no machine yet: its CPU over a window and heap after a full GC. */
  private record Baseline(double cpuPercent, double heapMiB) {
  }

  private record Load(double cpuPercent, double heapMiB, Baseline base) {
  }

  private static Baseline baseline(BenchSettings s, FleetLauncher.RunningHub hub) throws InterruptedException {
    return new Baseline(cpuPercent(hub, s.memberWindow()), HeapProbe.usedAfterGcMiB(hub.process().pid()));
  }

  private static Load load(BenchSettings s, FleetLauncher.RunningHub hub, Baseline base) throws InterruptedException {
    // the first window after a step takes what the joins left behind (registry saves, partition table, JIT): discarded
    cpuPercent(hub, s.memberWindow());
    double cpu = cpuPercent(hub, s.memberWindow());
    return new Load(cpu, HeapProbe.usedAfterGcMiB(hub.process().pid()), base);
  }

  private static double cpuPercent(FleetLauncher.RunningHub hub, Duration window) throws InterruptedException {
    return ScaleBench.idleCpuPercent(hub, window.toMillis());
  }

  private static long join(BenchSettings s, FleetProcess jvm, int count) {
    int mark = jvm.mark();
    jvm.send("join " + count);
    return number(jvm.awaitLine("joined \\[count: " + count + ",", mark, s.startTimeout().multipliedBy(2)), "ms");
  }

  private static long add(BenchSettings s, FleetProcess sim, int count, String endpoint) {
    int mark = sim.mark();
    sim.send("add " + count + " link false" + endpoint);
    FleetProcess.Line added = sim.awaitLine("added \\[count: " + count + ",", mark, s.startTimeout().multipliedBy(2));
    if (number(added, "failed") != 0) {
      throw new IllegalStateException("not every edge node linked: " + added.text());
    }
    return number(added, "ms");
  }

  private static Row row(String kind, int n, long allJoinedMs, long oneJoinMs, Load load, long settleMs, String what,
                         String note) {
    JsonObject figures = new JsonObject()
      .put("transport", kind)
      .put("peers", n)
      .put("allJoinedSeconds", round(allJoinedMs / 1000.0))
      .put("oneMoreJoinsMs", oneJoinMs)
      .put("hubCpuPercentOfOneCore", round(load.cpuPercent()))
      .put("hubCpuPercentPerPeer", Math.round((load.cpuPercent() - load.base().cpuPercent()) / n * 1000) / 1000.0)
      .put("hubHeapAfterGcMiB", round(load.heapMiB()))
      .put("hubHeapPerPeerKiB", Math.round((load.heapMiB() - load.base().heapMiB()) * 1024 / n))
      .put("hubIdleCpuPercentOfOneCore", round(load.base().cpuPercent()))
      .put("settledAfterLeaveMs", settleMs);
    return Row.figures(rowId(kind, n), n + " " + what, figures, note);
  }

  private static long number(FleetProcess.Line line, String key) {
    return ScaleBench.number(line, key);
  }

  private static String match(Pattern p, String text) {
    Matcher m = p.matcher(text);
    if (!m.find()) {
      throw new IllegalStateException("no " + p + " in: " + text);
    }
    return m.group(1);
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
