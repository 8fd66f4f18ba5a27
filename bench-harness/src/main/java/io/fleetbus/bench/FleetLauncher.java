package io.fleetbus.bench;

import io.fleetbus.bench.floor.FloorServerMain;
import io.fleetbus.bench.proc.Ports;
import io.fleetbus.bench.proc.ProcessGroup;
import io.fleetbus.bench.sim.LiteMembersMain;
import io.fleetbus.bench.sim.NodeSimulatorMain;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Starts the processes of a phase the way an operator would (fat jars, FLEETBUS_* overrides, a private
 * cluster name and ports, data under the work folder — the simulator's under {@code simulatorData}) and returns once
 * each says it is ready.
 */
final class FleetLauncher {
  private final BenchSettings settings;
  private final ProcessGroup group;
  private final Path simulatorData;
  private final Map<String, List<String>> phaseFlags = new HashMap<>();
  /**
   * The bench hub's {@code edge.maxUnprovenLinksPerAddress}: every simulated edge node links from 127.0.0.1, up to
   * {@link NodeSimulatorMain#JOINS_IN_FLIGHT} at once, each unproven until its hello is answered. The default (32, for a
   * NAT's nodes) refused 297 of 1,000 in the edge-scale phase; the endpoint's overall cap (256) still applies.
   */
  static final int UNPROVEN_LINKS_PER_ADDRESS = 256;

  /** @param simulatorData where the node simulator keeps its nodes' trust files ({@link BenchRun}: memory if it can) */
  FleetLauncher(BenchSettings settings, ProcessGroup group, Path simulatorData) {
    this.settings = settings;
    this.group = group;
    this.simulatorData = simulatorData;
  }

  /** A private cluster: a random name, and the port its first member (hub or floor server) listens on. */
  record Cluster(String phase, String name, int firstMemberPort) {
  }

  /** A hub that serves HTTP, with the admin dev token it wrote. */
  record RunningHub(FleetProcess process, int httpPort, String token) {
  }

  Cluster newCluster(String phase) {
    return new Cluster(phase, "fleetbus-bench-" + UUID.randomUUID(), Ports.free());
  }

  RunningHub startHub(Cluster cluster) throws IOException {
    return startHub(cluster, Map.of());
  }

  /** As above, with extra FLEETBUS_* settings for the hub (a switch for a same-run comparison). */
  RunningHub startHub(Cluster cluster, Map<String, String> extraEnv) throws IOException {
    Path data = settings.work().resolve("data").resolve(cluster.phase()).resolve("hub");
    // run_command is tier 3 (a person approves each call); the benchmark times the call path, not a person
    JsonObject conf = new JsonObject().put("heartbeatIntervalMs", settings.heartbeatMs()).put("missedHeartbeats", 3)
      .put("tierOverrides", new JsonObject().put("run_command", 2))
      .put("edge", new JsonObject().put("maxUnprovenLinksPerAddress", UNPROVEN_LINKS_PER_ADDRESS));
    Map<String, String> env = clusterEnv(cluster, cluster.firstMemberPort());
    int httpPort = Ports.free();
    env.put("FLEETBUS_HTTP_PORT", Integer.toString(httpPort));
    env.put("FLEETBUS_HUB_DATA", data.toString());
    env.put("FLEETBUS_HEARTBEAT_MS", Long.toString(settings.heartbeatMs()));
    if (System.getenv("BENCH_HUB_EVENT_LOOPS") != null) {
      env.put("FLEETBUS_EVENT_LOOPS", System.getenv("BENCH_HUB_EVENT_LOOPS"));
    }
    env.putAll(extraEnv);
    String name = cluster.phase() + "-hub";
    FleetProcess hub = start(name,
      settings.launcher().hub(withStages(cluster, settings.profileFlags(name)), "-conf", writeConf(name, conf).toString()),
      env);
    hub.awaitLine("api: http://|hub failed", settings.startTimeout());
    hub.awaitLine("api: http://", java.time.Duration.ZERO);
    Progress.say(cluster.phase() + ": hub ready");
    return new RunningHub(hub, httpPort, Files.readString(data.resolve("dev-token")).strip());
  }

  /** A real node agent (allowlist: echo) enrolling with this one-time token, returned once the hub has logged it online. */
  FleetProcess startNode(Cluster cluster, RunningHub hub, String nodeId, String enrollmentToken) throws IOException {
    return startNode(cluster, hub, nodeId, enrollmentToken, new JsonObject());
  }

  /** As above, with more conf ({@code confinement: none} for the spawn-cost comparison). */
  FleetProcess startNode(Cluster cluster, RunningHub hub, String nodeId, String enrollmentToken, JsonObject extraConf)
    throws IOException {
    JsonObject conf = new JsonObject().put("nodeId", nodeId).put("capabilityTier", "sudo")
      .put("labels", new JsonObject().put("site", "bench")).put("allowlist", new JsonArray(List.of("echo")))
      .mergeIn(extraConf);
    Map<String, String> env = clusterEnv(cluster, Ports.free());
    env.put("FLEETBUS_NODE_DATA", settings.work().resolve("data").resolve(cluster.phase()).resolve(nodeId).toString());
    env.put("FLEETBUS_ENROLLMENT_TOKEN", enrollmentToken);
    if (System.getenv("BENCH_NODE_EVENT_LOOPS") != null) {
      env.put("FLEETBUS_EVENT_LOOPS", System.getenv("BENCH_NODE_EVENT_LOOPS"));
    }
    String name = cluster.phase() + "-" + nodeId;
    FleetProcess node = start(name, settings.launcher().node(withStages(cluster, settings.profileFlags(name)), "-conf",
      writeConf(name, conf).toString()), env);
    hub.process().awaitLine(onlineLine(nodeId), settings.startTimeout());
    Progress.say(cluster.phase() + ": node " + nodeId + " online");
    return node;
  }

  /** The node simulator, a lite member of the cluster (like a node) that enrolls its nodes with this hub. */
  FleetProcess startSimulator(Cluster cluster, RunningHub hub) throws IOException {
    Map<String, String> env = new HashMap<>();
    env.put("FLEETBUS_BENCH_HUB_PORT", Integer.toString(hub.httpPort()));
    env.put("FLEETBUS_BENCH_HUB_TOKEN", hub.token());
    env.put("FLEETBUS_NODE_DATA", simulatorData.resolve(cluster.phase()).resolve("simulator").toString());
    return startHarnessMain(cluster, "simulator", NodeSimulatorMain.class, Ports.free(), "simulator ready", env);
  }

  /**
   * A JVM of cluster members for the membership-cost rows ({@link io.fleetbus.bench.sim.LiteMembersMain}); each member
   * takes a free port of its own, so the JVM gets no FLEETBUS_CLUSTER_PORT. Fewer Hazelcast I/O and event threads per
   * member than a node's own JVM has, so that 25 share a JVM: the protocol (heartbeats, joins) is unchanged.
   */
  FleetProcess startMembers(Cluster cluster, String tag) throws IOException {
    String name = cluster.phase() + "-" + tag;
    Map<String, String> env = clusterEnv(cluster, 0);
    env.remove("FLEETBUS_CLUSTER_PORT");
    List<String> flags = new java.util.ArrayList<>(settings.profileFlags(name));
    flags.addAll(List.of("-Dhazelcast.io.thread.count=1", "-Dhazelcast.event.thread.count=1"));
    FleetProcess process = start(name, settings.launcher().harnessMain(flags, LiteMembersMain.class, tag), env);
    process.awaitLine("members ready", settings.startTimeout());
    return process;
  }

  /** The floor's echo server, the cluster's first (data) member (like a hub). */
  FleetProcess startFloorServer(Cluster cluster) throws IOException {
    return startHarnessMain(cluster, "floor-server", FloorServerMain.class, cluster.firstMemberPort(), "floor server ready",
      Map.of(FloorServerMain.DURABLE_DB, floorDataDir(cluster).resolve("durable-floor.db").toString()));
  }

  /** Where the durable floor's SQLite file and the raw fsync's file go: under the work folder's data, beside the hubs'. */
  Path floorDataDir(Cluster cluster) {
    return settings.work().resolve("data").resolve(cluster.phase()).resolve("durable");
  }

  private FleetProcess startHarnessMain(Cluster cluster, String role, Class<?> main, int ownPort, String readyLine,
                                          Map<String, String> extraEnv) throws IOException {
    String name = cluster.phase() + "-" + role;
    Map<String, String> env = clusterEnv(cluster, ownPort);
    env.putAll(extraEnv);
    FleetProcess process = start(name, settings.launcher().harnessMain(settings.profileFlags(name), main), env);
    process.awaitLine(readyLine, settings.startTimeout());
    Progress.say(cluster.phase() + ": " + readyLine);
    return process;
  }

  /** The cluster settings for an in-process member (the floor client) of this cluster. */
  JsonObject clusterConf(Cluster cluster) {
    return new JsonObject().put("cluster", new JsonObject().put("config", settings.clusterXml().toString())
      .put("name", cluster.name()).put("port", Ports.free()).put("members", "127.0.0.1:" + cluster.firstMemberPort())
      .put("host", "127.0.0.1"));
  }

  /** Hub and node take call-stage stamps (CallStages) so the HTTP row can say where its time goes. */
  private List<String> withStages(Cluster cluster, List<String> flags) {
    List<String> all = new java.util.ArrayList<>(flags);
    all.add("-Dfleetbus.stages=true");
    all.addAll(phaseFlags.getOrDefault(cluster.phase(), List.of()));
    return all;
  }

  /** JVM flags every hub and node of {@code phase} starts with (fault switches for a same-run comparison). */
  void jvmFlags(String phase, List<String> flags) {
    phaseFlags.put(phase, List.copyOf(flags));
  }

  static String onlineLine(String nodeId) {
    return "node online \\[node: " + Pattern.quote(nodeId) + ",";
  }

  static String offlineLine(String nodeId) {
    return "node offline \\[node: " + Pattern.quote(nodeId) + ",";
  }

  private Map<String, String> clusterEnv(Cluster cluster, int ownPort) {
    Map<String, String> env = new HashMap<>();
    env.put("FLEETBUS_CLUSTER_CONFIG", settings.clusterXml().toString());
    env.put("FLEETBUS_CLUSTER_NAME", cluster.name());
    env.put("FLEETBUS_CLUSTER_HOST", "127.0.0.1");
    env.put("FLEETBUS_CLUSTER_PORT", Integer.toString(ownPort));
    env.put("FLEETBUS_CLUSTER_MEMBERS", "127.0.0.1:" + cluster.firstMemberPort());
    return env;
  }

  private FleetProcess start(String name, List<String> command, Map<String, String> env) throws IOException {
    if (settings.jfrDir() != null) {
      Files.createDirectories(settings.jfrDir());
    }
    return group.add(FleetProcess.start(name, command, env, settings.root(),
      settings.work().resolve("logs").resolve(name + ".log")));
  }

  private Path writeConf(String name, JsonObject conf) throws IOException {
    Path file = settings.work().resolve("conf").resolve(name + ".json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, conf.encodePrettily());
    return file;
  }
}
