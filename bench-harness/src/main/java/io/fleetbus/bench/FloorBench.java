package io.fleetbus.bench;

import io.fleetbus.bench.floor.FloorPath;
import io.fleetbus.bench.load.Await;
import io.fleetbus.bench.load.LoadRunner;
import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.report.Row;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.testsupport.FleetProcess;
import java.time.Duration;
import java.util.List;

/**
 * Row 1, the floor: raw clustered event-bus request/reply between this JVM (a lite member, like a node)
 * and a floor server JVM (a data member, like a hub) on loopback. Every other row is read against it.
 */
final class FloorBench {
  static final String LATENCY = "floor_latency";
  static final String THROUGHPUT = "floor_throughput";

  private FloorBench() {
  }

  static List<Row> run(BenchSettings s, FleetLauncher launcher, ProcessGroup group) throws Exception {
    FleetLauncher.Cluster cluster = launcher.newCluster("floor");
    FleetProcess server = launcher.startFloorServer(cluster);
    ClusterLauncher.Member client = Await.result(ClusterLauncher.start(launcher.clusterConf(cluster), true),
      s.startTimeout());
    try {
      FloorPath path = new FloorPath(client.vertx());
      Await.firstAnswer(client.vertx(), path, s.startTimeout());
      Progress.say("floor: client joined and answered");
      LoadRunner runner = new LoadRunner(client.vertx());
      String body = "~" + path.payloadBytes() + " B JSON";
      return List.of(
        Row.timed(LATENCY, "floor: clustered event-bus request/reply, 2 JVMs, 1 in flight",
          runner.measure(path, s.floorLatency()), body),
        Row.timed(THROUGHPUT, "floor: same, " + s.floorThroughput().inFlight() + " in flight",
          runner.measure(path, s.floorThroughput()), body));
    } finally {
      Await.result(client.vertx().close(), Duration.ofSeconds(30));
      group.stop(server);
    }
  }
}
