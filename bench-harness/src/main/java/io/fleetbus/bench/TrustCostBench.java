package io.fleetbus.bench;

import io.fleetbus.bench.http.HubClient;
import io.fleetbus.bench.http.ToolCallPath;
import io.fleetbus.bench.load.Load;
import io.fleetbus.bench.load.LoadRunner;
import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.report.Row;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What cluster trust (issue 15 parts 1–3: member pinning, proofs, sealing; issue 32: shared entries' versions) costs the HTTP tool call, in the same run:
 * a second fleet whose hub and node start with those defences switched off, measured in alternating blocks with the
 * main fleet (A B A B …) so both see the same machine state; the row gives each fleet's median block p50 and the
 * difference. The second fleet first takes the HTTP throughput row's load untimed, as the main fleet did, so both are
 * equally warm.
 */
final class TrustCostBench {
  static final String ROW = "trust_cost";
  static final List<String> OFF = List.of("-D" + FaultSwitch.NO_MEMBER_PINNING.property() + "=true",
    "-D" + FaultSwitch.NO_CALL_SEALING.property() + "=true", "-D" + FaultSwitch.NO_SHARED_FRESHNESS.property() + "=true");
  /** Both are security switches: a hub or node takes them only in a run that says it is not production. */
  static final String NOT_PRODUCTION = "-D" + FaultSwitches.TEST_RUN + "=true";
  /**
   * Eight blocks a side (the same calls as four of twice the size): a median of four moved by 0.2-0.3 ms between loaded
   * runs (stop 41: on-blocks 1.51-2.07 ms), more than the 0.1-ms target it judges.
   */
  private static final int ROUNDS = 8;

  private TrustCostBench() {
  }

  static Row run(BenchSettings s, FleetLauncher launcher, ProcessGroup group, Vertx vertx, HubClient trusted)
    throws Exception {
    launcher.jvmFlags("trustoff", java.util.stream.Stream.concat(OFF.stream(), java.util.stream.Stream.of(NOT_PRODUCTION))
      .toList());
    FleetLauncher.Cluster cluster = launcher.newCluster("trustoff");
    FleetLauncher.RunningHub hub = launcher.startHub(cluster);
    FleetProcess node = null;
    try (HubClient plain = new HubClient(vertx, hub.httpPort(), hub.token(), s.httpThroughput().inFlight())) {
      String token = plain.enrollmentToken(FleetBench.NODE_ID).toCompletionStage().toCompletableFuture()
        .get(s.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
      node = launcher.startNode(cluster, hub, FleetBench.NODE_ID, token);
      LoadRunner runner = new LoadRunner(vertx);
      Load block = new Load(1, Math.max(1, s.httpLatency().warmup() * 2 / ROUNDS),
        Math.max(10, s.httpLatency().count() / ROUNDS), s.httpLatency().cap());
      // the main fleet is warm (every row before this one ran on it): give the second one's JIT the same chance
      FleetBench.warmUntilSteady(runner, health(plain), s);
      return Row.figures(ROW, "HTTP tool call: cluster trust on vs off (pinning + sealing), same run",
        AlternatingBlocks.compare(runner, health(trusted), health(plain), block, ROUNDS),
        "second fleet with " + String.join(" ", OFF) + "; blocks alternate A B A B, median of block p50s");
    } finally {
      if (node != null) {
        group.stop(node);
      }
      group.stop(hub.process());
    }
  }

  private static ToolCallPath health(HubClient client) {
    return new ToolCallPath(client, FleetBench.NODE_ID, "get_agent_health", new JsonObject(),
      data -> data.getBoolean("registered", false));
  }
}
