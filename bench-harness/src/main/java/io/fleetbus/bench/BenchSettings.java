package io.fleetbus.bench;

import io.fleetbus.bench.load.Load;
import io.fleetbus.bench.proc.JvmLauncher;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Everything one benchmark run needs: where things go, how to start JVMs, and the sizes of each
 * measurement. {@link #full} is the benchmark of docs/performance.md; {@link #smoke} proves the harness works in
 * well under a minute (N = 10 nodes, a few hundred requests).
 *
 * @param jfrDir        when not null, every JVM the run starts records a JFR profile there (name.jfr)
 * @param heartbeatMs   heartbeat interval the hubs hand out (offline after 3 silent intervals)
 * @param scaleCycles   heartbeat intervals a scale window spans at least (hub CPU is averaged over it)
 * @param fanOutWide    simulated nodes of the one-call fan-out by labels (issue 17: 1,000)
 * @param memberSteps   machine counts of the membership-cost rows (cluster members against edge links)
 * @param membersPerJvm cluster members one harness JVM holds
 * @param memberWindow  how long the hub's CPU is averaged over at each membership step
 * @param edgeLinks     simulated edge nodes of the edge-scale row; 0: {@link #edgeNodes()}'s default
 */
public record BenchSettings(String mode, Path root, Path work, Path results, JvmLauncher launcher, Path jfrDir,
                            Load floorLatency, Load floorThroughput, Load httpLatency, Load httpThroughput,
                            Load runCommand, Load sshMultiplexed, Load sshPlain, Load fanOut, int fanOutNodes,
                            List<Integer> scaleSteps, long heartbeatMs, int scaleCycles, Duration startTimeout,
                            List<Integer> memberSteps, int membersPerJvm, Duration memberWindow,
                            int fanOutWide, Load fanOutWideLoad, int edgeLinks) {

  public static BenchSettings full(Path root, Path work, Path results, JvmLauncher launcher, Path jfrDir) {
    return new BenchSettings("full", root, work, results, launcher, jfrDir,
      Load.of(1, 2_000, 5_000, 15), Load.of(256, 20_000, 60_000, 15),
      Load.of(1, 500, 2_000, 15), Load.of(32, 1_000, 6_000, 15),
      Load.of(1, 300, 200, 15), Load.of(1, 5, 100, 15), Load.of(1, 2, 20, 15),
      Load.of(1, 5, 30, 15), 100,
      List.of(1_000, 10_000, 50_000), 5_000, 4, Duration.ofSeconds(120),
      List.of(25, 50, 100), 25, Duration.ofSeconds(10),
      1_000, Load.of(1, 3, 20, 30), 0);
  }

  public static BenchSettings smoke(Path root, Path work, Path results, JvmLauncher launcher, Path jfrDir) {
    return new BenchSettings("smoke", root, work, results, launcher, jfrDir,
      Load.of(1, 100, 300, 10), Load.of(256, 500, 2_000, 10),
      Load.of(1, 30, 100, 10), Load.of(8, 50, 200, 10),
      Load.of(1, 3, 20, 10), Load.of(1, 2, 10, 10), Load.of(1, 1, 3, 10),
      Load.of(1, 2, 5, 10), 10,
      List.of(10), 1_000, 2, Duration.ofSeconds(90),
      List.of(3), 3, Duration.ofSeconds(2),
      20, Load.of(1, 1, 3, 10), 0);
  }

  /**
   * Simulated edge nodes of the edge-scale row: the first scale step; in smoke mode 40, more than the hub's default
   * {@code edge.maxUnprovenLinksPerAddress} (32) joining at once from one address, so that a bench hub refusing the
   * simulator's loopback links fails the smoke run (BenchSmokeTest) rather than a full run.
   */
  public int edgeNodes() {
    return edgeLinks > 0 ? edgeLinks : isSmoke() ? SMOKE_EDGE_NODES : scaleSteps.get(0);
  }

  /** These settings with {@code n} simulated edge nodes in the edge-scale row (bench.sh --edge-nodes). */
  public BenchSettings withEdgeNodes(int n) {
    return new BenchSettings(mode, root, work, results, launcher, jfrDir, floorLatency, floorThroughput, httpLatency,
      httpThroughput, runCommand, sshMultiplexed, sshPlain, fanOut, fanOutNodes, scaleSteps, heartbeatMs, scaleCycles,
      startTimeout, memberSteps, membersPerJvm, memberWindow, fanOutWide, fanOutWideLoad, n);
  }

  static final int SMOKE_EDGE_NODES = 40;

  public boolean isSmoke() {
    return "smoke".equals(mode);
  }

  /** JVM flags for a process of this run: a JFR recording named after it when profiling. */
  public List<String> profileFlags(String processName) {
    return jfrDir == null ? List.of()
      : List.of("-XX:StartFlightRecording=settings=profile,filename=" + jfrDir.resolve(processName + ".jfr"));
  }

  public Path clusterXml() {
    return root.resolve("cluster.xml");
  }
}
