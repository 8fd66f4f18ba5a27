package io.fleetbus.bench;

import io.fleetbus.bench.floor.DurableFloorPath;
import io.fleetbus.bench.floor.DurableReplier;
import io.fleetbus.bench.floor.FloorPath;
import io.fleetbus.bench.floor.FloorRounds;
import io.fleetbus.bench.load.Await;
import io.fleetbus.bench.load.LatencyStats;
import io.fleetbus.bench.load.Measured;
import io.fleetbus.bench.load.LoadRunner;
import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.report.Row;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;

/**
 * Row 1, the floor: raw clustered event-bus request/reply between this JVM (a lite member, like a node)
 * and a floor server JVM (a data member, like a hub) on loopback. Every other row is read against it. Issue 38: the
 * durable floor, the same request/reply answered only after the replier committed one record with the audit's SQLite
 * settings in the bench's data folder, and the raw fsync of that folder it cannot go below: the 1-in-flight latency of a
 * call that must be durable before its answer is judged against it.
 */
final class FloorBench {
  static final String LATENCY = "floor_latency";
  static final String THROUGHPUT = "floor_throughput";
  static final String DURABLE = "floor_durable_latency";
  static final String DURABLE_HOP = "floor_durable_hop_latency";
  static final String RAW_FSYNC = "raw_fsync";
  /** Blocks per 1-in-flight row, floor / durable floor / fsync in turn. */
  private static final int ROUNDS = 10;

  private FloorBench() {
  }

  /** The replier's own times of a path's timed calls, with the calls' own counts and rate. */
  private static Measured serverSide(DurableFloorPath path, Measured calls) {
    return new Measured(path.commits(), calls.perSecond(), calls.warmup(), calls.samples(), 1);
  }

  /** The replier's own insert + commit times of the timed calls. */
  private static JsonObject commits(DurableFloorPath path) {
    LatencyStats c = path.commits();
    return new JsonObject().put("replierCommitP50Ms", c.p50Ms()).put("replierCommitP99Ms", c.p99Ms())
      .put("replierCommits", c.count()).put("outsideCommitP50Ms", path.outsideCommit().p50Ms());
  }

  /**
   * The raw fsync as a request pays it (the floor + one bare write + fsync on the replier's loop: its round trip, and
   * the round trip less the fsync), and two controls of the same length without a disk: a busy wait (the loop keeps
   * its core) and a sleep (the loop's thread leaves it, as in a blocking fsync).
   */
  private static JsonObject fsyncFigures(DurableFloorPath fsync, Measured fsyncCalls, DurableFloorPath spin,
                                         Measured spinCalls, DurableFloorPath park, Measured parkCalls) {
    return new JsonObject().put("requestP50Ms", fsyncCalls.stats().p50Ms()).put("requestP99Ms", fsyncCalls.stats().p99Ms())
      .put("outsideFsyncP50Ms", fsync.outsideCommit().p50Ms())
      .put("spinControl", control(spin, spinCalls)).put("sleepControl", control(park, parkCalls));
  }

  private static JsonObject control(DurableFloorPath path, Measured calls) {
    return new JsonObject().put("waitP50Ms", path.commits().p50Ms()).put("requestP50Ms", calls.stats().p50Ms())
      .put("outsideWaitP50Ms", path.outsideCommit().p50Ms());
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
      DurableFloorPath durable = new DurableFloorPath(client.vertx(), DurableReplier.ADDRESS);
      DurableFloorPath hop = new DurableFloorPath(client.vertx(), DurableReplier.HOP_ADDRESS);
      Await.firstAnswer(client.vertx(), durable, s.startTimeout());
      Await.firstAnswer(client.vertx(), hop, s.startTimeout());
      DurableFloorPath fsync = new DurableFloorPath(client.vertx(), DurableReplier.FSYNC_ADDRESS);
      Await.firstAnswer(client.vertx(), fsync, s.startTimeout());
      DurableFloorPath spin = new DurableFloorPath(client.vertx(), DurableReplier.SPIN_ADDRESS);
      DurableFloorPath park = new DurableFloorPath(client.vertx(), DurableReplier.PARK_ADDRESS);
      List<DurableFloorPath> served = List.of(durable, hop, fsync, spin, park);
      FloorRounds.Result r = FloorRounds.run(runner, List.of(path, durable, hop, fsync, spin, park), s.floorLatency(),
        ROUNDS, () -> served.forEach(DurableFloorPath::resetCommits));
      String rounds = "; timed in " + ROUNDS + " rounds with the durable floors, the raw fsync and two controls";
      return List.of(
        Row.timed(LATENCY, "floor: clustered event-bus request/reply, 2 JVMs, 1 in flight", r.paths().get(0),
          body + rounds),
        Row.timed(DURABLE, "durable floor: same, the replier commits one SQLite record first (WAL, synchronous=FULL),"
            + " 1 in flight", r.paths().get(1), body + "; commits on the event loop that serves the floor's echo, then answers")
          .withFigures(commits(durable)),
        Row.timed(DURABLE_HOP, "durable floor + a thread hop: same, committed on a worker verticle (diagnostic)",
          r.paths().get(2), "the hand-off to a blocking thread and back that the audit makes too").withFigures(commits(hop)),
        Row.timed(RAW_FSYNC, "raw fsync of that folder: a WAL frame (24 B + 4 KiB, two writes) over a 1,000-frame file"
            + " + fsync(2), timed in the replier, one per request", serverSide(fsync, r.paths().get(3)),
          "FileChannel.force(true) = fsync(2), what SQLite calls on the WAL per commit; calls/s: of the requests")
          .withFigures(fsyncFigures(fsync, r.paths().get(3), spin, r.paths().get(4), park, r.paths().get(5))),
        Row.timed(THROUGHPUT, "floor: same, " + s.floorThroughput().inFlight() + " in flight",
          runner.measure(path, s.floorThroughput()), body));
    } finally {
      Await.result(client.vertx().close(), Duration.ofSeconds(30));
      group.stop(server);
    }
  }
}
