package io.fleetbus.it;

import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A throw-away fleet for one test class: a random cluster name, free ports, temp data folders, and
 * real hub and node JVMs joined over loopback. {@link #close()} kills whatever is still running.
 */
public final class TestFleet implements AutoCloseable {
  public static final Duration START = Duration.ofSeconds(60);

  public final String clusterName = "fleetbus-test-" + UUID.randomUUID();
  public final int hubClusterPort = freePort();
  public final int httpPort = freePort();
  public final Path dir;
  public final long heartbeatMs;
  /** Synchronized: a test may start processes from several threads (PartitionTest starts a hub and nodes at once). */
  private final List<FleetProcess> processes = java.util.Collections.synchronizedList(new ArrayList<>());
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(Duration.ofSeconds(5)).build();
  private String token;
  /** Written as the hub's conf file by {@link #startHub}: set fields before starting it. */
  public final JsonObject hubConf = new JsonObject();
  private String approverToken;
  private final List<AutoCloseable> closing = new ArrayList<>();
  private io.vertx.core.Vertx clientVertx;

  public TestFleet(long heartbeatMs) {
    this.heartbeatMs = heartbeatMs;
    try {
      dir = Files.createTempDirectory("fleetbus-it");
      Files.writeString(dir.resolve("conf.json"), "{}");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Adds to the conf every hub of this fleet starts with (call it before {@link #startHub()}). */
  public void hubConf(JsonObject conf) {
    hubConf.mergeIn(conf, true);
  }

  private Map<String, String> clusterEnv(int ownPort) {
    Map<String, String> env = new HashMap<>();
    env.put("FLEETBUS_CLUSTER_NAME", clusterName);
    env.put("FLEETBUS_CLUSTER_PORT", Integer.toString(ownPort));
    // the hub's port plus the next two: if another process took the port between our probe and the hub's
    // bind, Hazelcast moves the hub up by one or two, and members still find it
    env.put("FLEETBUS_CLUSTER_MEMBERS", "127.0.0.1:" + hubClusterPort + ",127.0.0.1:" + (hubClusterPort + 1)
      + ",127.0.0.1:" + (hubClusterPort + 2));
    env.put("FLEETBUS_CLUSTER_CONFIG", Path.of("..", "cluster.xml").toAbsolutePath().normalize().toString());
    env.put("FLEETBUS_HEARTBEAT_MS", Long.toString(heartbeatMs));
    return env;
  }

  /** Starts a hub and waits until it serves HTTP. */
  public FleetProcess startHub(String name, Map<String, String> extraEnv) {
    Map<String, String> env = clusterEnv(hubClusterPort);
    env.put("FLEETBUS_HTTP_PORT", Integer.toString(httpPort));
    env.put("FLEETBUS_HUB_DATA", dir.resolve("hub").toString());
    env.putAll(extraEnv);
    FleetProcess hub = launchHub(name, env, hubConf);
    try {
      token = Files.readString(dir.resolve("hub").resolve("dev-token")).strip();
      approverToken = Files.readString(dir.resolve("hub").resolve("dev-approver-token")).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return hub;
  }

  public FleetProcess startHub() {
    return startHub("hub", Map.of());
  }

  /** Another hub of the same fleet: its own data folder and HTTP port, the first hub's keys (as conf/hub-2.example.json). */
  public record PeerHub(FleetProcess process, int httpPort) {
  }

  /** Starts a peer of the first hub (start that one first) and waits until it serves HTTP. */
  public PeerHub startPeerHub(String name, int clusterPortOffset) {
    return startPeerHub(name, clusterPortOffset, Map.of());
  }

  /** As above, with more environment (an edge port, a fault switch). */
  public PeerHub startPeerHub(String name, int clusterPortOffset, Map<String, String> extraEnv) {
    return startPeerHub(name, clusterPortOffset, extraEnv, new JsonObject(), List.of());
  }

  /** As above, with more conf (merged into {@link #hubConf}) and the JVM started by {@code wrapper} (see {@link Netns}). */
  public PeerHub startPeerHub(String name, int clusterPortOffset, Map<String, String> extraEnv, JsonObject extraConf,
                              List<String> wrapper) {
    int port = freePort();
    Map<String, String> env = clusterEnv(hubClusterPort + clusterPortOffset);
    env.put("FLEETBUS_HTTP_PORT", Integer.toString(port));
    env.put("FLEETBUS_HUB_DATA", dir.resolve(name).toString());
    env.putAll(extraEnv);
    JsonObject conf = hubConf.copy().mergeIn(extraConf, true)
      .put("keysDir", dir.resolve("hub").resolve("keys").toString());
    return new PeerHub(launchHub(name, env, conf, wrapper), port);
  }

  private FleetProcess launchHub(String name, Map<String, String> env, JsonObject confJson) {
    return launchHub(name, env, confJson, List.of());
  }

  private FleetProcess launchHub(String name, Map<String, String> env, JsonObject confJson, List<String> wrapper) {
    Path conf = dir.resolve(name + "-conf.json");
    try {
      Files.writeString(conf, confJson.encodePrettily());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    FleetProcess hub = FleetProcess.startWrapped(name, wrapper, "io.fleetbus.hub.boot.HubMain", env,
      dir.resolve(name + ".log"), "-conf", conf.toString());
    processes.add(hub);
    hub.awaitLine("api: http://", START);
    return hub;
  }

  /** A request to the hub serving HTTP on {@code port}, as the admin dev token (valid on every hub of the fleet). */
  public Response sendTo(int port, String method, String path, String json, String bearer, String... headers) {
    return sendTo("127.0.0.1", port, method, path, json, bearer, headers);
  }

  /** As above, to a hub whose HTTP listens on {@code host} (one in a network namespace). */
  public Response sendTo(String host, int port, String method, String path, String json, String bearer,
                         String... headers) {
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + path))
      .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      req.header(headers[i], headers[i + 1]);
    }
    return send(req, bearer == null ? token : bearer);
  }

  /** Starts a node; the caller waits for the hub to report it online. */
  public FleetProcess startNode(String nodeId, String tier) {
    return startNode(nodeId, tier, new JsonObject());
  }

  /** Starts a node with a conf file of its own (allowlist, labels, scopes …). */
  public FleetProcess startNode(String nodeId, String tier, JsonObject conf) {
    return startNode(nodeId, tier, conf, Map.of());
  }

  /**
   * Starts a node that enrolls like a real one: a one-time token from {@code POST /api/v1/enrollments}
   * for its first hello (a node that already holds a credential ignores it).
   */
  public FleetProcess startNode(String nodeId, String tier, JsonObject conf, Map<String, String> extraEnv) {
    return startNode(nodeId, tier, conf, extraEnv, List.of());
  }

  /** As above, the node's JVM started by {@code wrapper} (e.g. {@code ip netns exec NAME}: see {@link Netns}). */
  public FleetProcess startNode(String nodeId, String tier, JsonObject conf, Map<String, String> extraEnv,
                                List<String> wrapper) {
    Path confFile = dir.resolve("node-" + nodeId + ".json");
    try {
      Files.writeString(confFile, conf.encodePrettily());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, String> env = clusterEnv(freePort());
    env.put("FLEETBUS_NODE_ID", nodeId);
    env.put("FLEETBUS_NODE_TIER", tier);
    env.put("FLEETBUS_NODE_DATA", dir.resolve("node-" + nodeId).toString());
    if (token != null) {
      env.put("FLEETBUS_ENROLLMENT_TOKEN", enrollmentToken(nodeId));
    }
    env.putAll(extraEnv);
    FleetProcess node = FleetProcess.startWrapped("node-" + nodeId, wrapper, "io.fleetbus.node.boot.NodeMain", env,
      dir.resolve("node-" + nodeId + ".log"), "-conf", confFile.toString());
    processes.add(node);
    return node;
  }

  /**
   * Runs scripts/install-node.sh into a folder of this fleet ({@code --root}) for {@code nodeId} with a fresh enrollment
   * token and {@code args}; answers that root (etc/fleetbus/node.json and node.env are what systemd would use).
   */
  public Path installNode(String nodeId, String... args) throws IOException, InterruptedException {
    Path root = Files.createDirectories(dir.resolve("install-" + nodeId));
    Path jar = Files.writeString(dir.resolve("node.jar"), "the test runs the node from its classpath");
    List<String> command = new ArrayList<>(List.of("bash", Path.of("..", "scripts", "install-node.sh").toAbsolutePath()
      .normalize().toString(), "--root", root.toString(), "--jar", jar.toString(), "--node-id", nodeId));
    command.addAll(List.of(args));
    ProcessBuilder install = new ProcessBuilder(command).redirectErrorStream(true);
    // a real one-time token from the hub: the node enrolls with what the installer wrote
    install.environment().put("FLEETBUS_ENROLLMENT_TOKEN", enrollmentToken(nodeId));
    Process p = install.start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError("install-node.sh failed: " + out);
    }
    return root;
  }

  /**
   * Starts a node as systemd would from what {@link #installNode} wrote: its EnvironmentFile, then NodeMain with the
   * installed conf (data kept under the root), with {@code extraEnv}. Closed with the fleet.
   */
  public FleetProcess startInstalled(Path root, String nodeId, Map<String, String> extraEnv) throws IOException {
    Map<String, String> env = new HashMap<>();
    for (String line : Files.readAllLines(root.resolve("etc/fleetbus/node.env"))) {
      env.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
    }
    env.put("FLEETBUS_NODE_DATA", root.resolve("var/lib/fleetbus/node").toString());
    env.putAll(extraEnv);
    FleetProcess node = FleetProcess.start(nodeId, "io.fleetbus.node.boot.NodeMain", env, dir.resolve(nodeId + ".log"),
      "-conf", root.resolve("etc/fleetbus/node.json").toString());
    processes.add(node);
    return node;
  }

  /** A fresh one-time enrollment token for {@code nodeId}, made by the admin dev token. */
  public String enrollmentToken(String nodeId) {
    Response r = post("/api/v1/enrollments", new JsonObject().put("nodeId", nodeId).encode());
    if (r.status() != 201) {
      throw new AssertionError("enrollment token refused: " + r.status() + " " + r.body().encode());
    }
    return r.body().getString("token");
  }

  /** Approves as the dev approver (a second person: the admin may not approve their own calls). */
  public Response approve(String approvalId, String reason) {
    return decide(approvalId, "approve", reason);
  }

  public Response deny(String approvalId, String reason) {
    return decide(approvalId, "deny", reason);
  }

  private Response decide(String approvalId, String decision, String reason) {
    String body = reason == null ? "{}" : new JsonObject().put("reason", reason).encode();
    return send(HttpRequest.newBuilder(uri("/api/v1/approvals/" + approvalId + "/" + decision))
      .POST(HttpRequest.BodyPublishers.ofString(body)), approverToken);
  }

  public static String onlineLine(String nodeId) {
    return "node online \\[node: " + java.util.regex.Pattern.quote(nodeId) + ",";
  }

  public static String offlineLine(String nodeId) {
    return "node offline \\[node: " + java.util.regex.Pattern.quote(nodeId) + ",";
  }

  public record Response(int status, JsonObject body) {
  }

  public Response post(String path, String json) {
    return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(json == null ? "" : json)), token);
  }

  public Response get(String path) {
    return send(HttpRequest.newBuilder(uri(path)).GET(), token);
  }

  public Response send(HttpRequest.Builder req, String bearer) {
    if (bearer != null) {
      req.header("Authorization", "Bearer " + bearer);
    }
    try {
      HttpResponse<String> resp = http.send(req.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
      String body = resp.body();
      return new Response(resp.statusCode(), body == null || body.isBlank() ? new JsonObject() : new JsonObject(body));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public URI uri(String path) {
    return URI.create("http://127.0.0.1:" + httpPort + path);
  }

  /**
   * Asks for a tier-3 call as the admin, approves it as the dev approver and waits until {@code node} has
   * started it; answers the call id.
   */
  public String startApprovedCall(FleetProcess node, String nodeId, String tool, String argsJson) {
    Response parked = post("/api/v1/nodes/" + nodeId + "/tools/" + tool, argsJson);
    if (parked.status() != 202) {
      throw new AssertionError("expected a pending approval: " + parked.status() + " " + parked.body().encode());
    }
    String callId = parked.body().getString("callId");
    Response approved = approve(parked.body().getString("approvalId"), "fault test");
    if (approved.status() != 200) {
      throw new AssertionError("approval refused: " + approved.body().encode());
    }
    node.awaitLine("privileged call started \\[call: " + java.util.regex.Pattern.quote(callId), Duration.ofSeconds(20));
    return callId;
  }

  /** A token for another person, signed with the fleet's keys (start the first hub before). */
  public String mintToken(String subject, String... roles) {
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try {
      return io.fleetbus.hub.auth.HubKeys.mint(io.fleetbus.hub.auth.HubKeys.loadOrCreate(dir.resolve("hub").resolve("keys"))
        .jwtAuth(vertx), subject, List.of(roles), 10);
    } catch (Exception e) {
      throw new IllegalStateException("cannot mint a token: " + e.getMessage(), e);
    } finally {
      vertx.close();
    }
  }

  public String token() {
    return token;
  }

  public String approverToken() {
    return approverToken;
  }

  /**
   * A port nothing listens on, below the kernel's ephemeral range (32768+ here): a port the kernel handed out as free
   * could go, before the hub binds it, to an outgoing connection's source port (the cluster tier runs two test JVMs at
   * once, each making connections all the time); seen once as a hub's "Address already in use". Random, so the
   * two JVMs rarely try the same one, and checked by binding it.
   */
  public static int freePort() {
    java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
    for (int i = 0; i < 200; i++) {
      int port = random.nextInt(20_000, 32_000);
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(false);
        s.bind(new java.net.InetSocketAddress("0.0.0.0", port));
        return port;
      } catch (IOException taken) {
        // in use: try another
      }
    }
    throw new UncheckedIOException(new IOException("no free port in 20000-31999 after 200 tries"));
  }

  /** Closes {@code resource} (say, a rogue member) when this fleet closes, before its processes; returns it. */
  public <T extends AutoCloseable> T closing(T resource) {
    closing.add(resource);
    return resource;
  }

  /** A plain Vert.x on the test's side of the wire (for WebSocket clients), closed with this fleet. */
  public synchronized io.vertx.core.Vertx clientVertx() {
    if (clientVertx == null) {
      clientVertx = io.vertx.core.Vertx.vertx();
    }
    return clientVertx;
  }

  @Override
  public void close() {
    Exception failed = null;
    for (int i = closing.size() - 1; i >= 0; i--) {
      try {
        closing.get(i).close();
      } catch (Exception e) {
        failed = e;
      }
    }
    if (clientVertx != null) {
      clientVertx.close();
    }
    processes.forEach(FleetProcess::close);
    // the folder holds the JVMs' logs and data; -Dfleetbus.keepTestDirs=true keeps it for a post-mortem
    if (!Boolean.getBoolean("fleetbus.keepTestDirs")) {
      try (var paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException | UncheckedIOException e) {
        // best effort: a temp folder left behind is harmless
      }
    }
    if (failed != null) {
      throw new IllegalStateException("closing a test resource failed: " + failed, failed);
    }
  }
}
