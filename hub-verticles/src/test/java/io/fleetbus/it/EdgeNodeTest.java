package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.PeerHub;
import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.edge.EdgePeer;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.node.api.NodeCredentials;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 20: a node outside the cluster network. The edge node runs no Hazelcast: it keeps one TLS link to a hub's
 * edge endpoint (the hubs' certificate pinned) and is served by either hub of a two-hub fleet, the hub holding its
 * link relaying through the cluster. A node pinning another certificate never links; a link that does not prove
 * itself is closed by the hub; when the hub holding the link is SIGKILLed the node links to the other within 10 s, and
 * a call it was relaying ends as every lost call does: 503 outcome unknown, then GET /calls/{id} asks the node's journal.
 * One fleet for the class; the tests run in order (the last one kills a hub).
 */
@Timeout(240)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("cluster")
class EdgeNodeTest {
  private static TestFleet fleet;
  private static FleetProcess hubA;
  private static PeerHub hubB;
  private static FleetProcess edgeNode;
  private static final int EDGE_A = TestFleet.freePort();
  private static final int EDGE_B = TestFleet.freePort();
  /** The silent cut's length in the last test. */
  private static final int CUT_SECONDS = 30;
  private static String pin;
  /** The edge node's own network (where the machine allows): it reaches the hubs' edge endpoints and nothing else. */
  private static Netns netns;
  private static String edgeHost = "127.0.0.1";

  @BeforeAll
  static void fleet() throws Exception {
    fleet = new TestFleet(1000);
    netns = Netns.tryCreate();
    if (netns != null) {
      edgeHost = netns.hostAddress();
      System.out.println("the edge node runs in its own network namespace, reaching only " + edgeHost);
    }
    // the edge endpoints listen where the edge node's network ends; the cluster and HTTP ports stay on loopback
    fleet.hubConf(new JsonObject().put("edge", new JsonObject().put("host", edgeHost)));
    hubA = fleet.startHub("hub", Map.of("FLEETBUS_EDGE_PORT", Integer.toString(EDGE_A)));
    hubB = fleet.startPeerHub("hub-b", 1, Map.of("FLEETBUS_EDGE_PORT", Integer.toString(EDGE_B)));
    // an enrollment answer names what an edge node needs: the endpoint and the certificate to pin (the same on both
    // hubs: it lives with the keys they share)
    Response enrollment = fleet.post("/api/v1/enrollments", new JsonObject().put("nodeId", "edge-0").encode());
    assertEquals(201, enrollment.status(), enrollment.body().encode());
    assertEquals(edgeHost + ":" + EDGE_A, enrollment.body().getString("edgeEndpoint"), enrollment.body().encode());
    // every live hub's endpoint, this hub's first (issue 35): what install-node.sh --edge --hub takes
    assertEquals(List.of(edgeHost + ":" + EDGE_A, edgeHost + ":" + EDGE_B),
      enrollment.body().getJsonArray("edgeEndpoints").getList(), enrollment.body().encode());
    pin = enrollment.body().getString("edgeCertSha256");
    String cert = Files.readString(fleet.dir.resolve("hub").resolve("keys").resolve("edge-cert.pem"));
    assertEquals(Digests.hex(Digests.sha256(CertificateFactory.getInstance("X.509")
      .generateCertificate(new ByteArrayInputStream(cert.getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
      .getEncoded())), pin, "the pin is the SHA-256 of the certificate the endpoint presents");
    edgeNode = startEdge("edge-1", pin, Map.of());
    hubA.awaitLine(TestFleet.onlineLine("edge-1"), TestFleet.START);
  }

  private static FleetProcess startEdge(String nodeId, String certSha256, Map<String, String> env) {
    Map<String, String> all = new java.util.HashMap<>(env);
    all.put("FLEETBUS_TRANSPORT", "edge");
    all.put("FLEETBUS_EDGE_HUBS", edgeHost + ":" + EDGE_A + "," + edgeHost + ":" + EDGE_B);
    all.put("FLEETBUS_EDGE_CERT_SHA256", certSha256);
    return fleet.startNode(nodeId, "sudo", new JsonObject().put("allowlist", new io.vertx.core.json.JsonArray()
      .add("echo").add("sleep")), all, netns == null ? List.of() : netns.exec());
  }

  @AfterAll
  static void stop() {
    if (fleet != null) {
      fleet.close();
    }
    if (netns != null) {
      netns.close();
    }
  }

  @Test
  @Order(1)
  void eitherHubServesTheEdgeNodesCallsAndItIsNoClusterMember() throws Exception {
    Response viaA = fleet.post("/api/v1/nodes/edge-1/tools/get_agent_health", "{}");
    assertEquals(200, viaA.status(), viaA.body().encode());
    assertEquals("edge-1", viaA.body().getString("nodeId"), viaA.body().encode());
    // hub B holds no link: its call crosses the cluster to hub A, then the link
    Response viaB = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/nodes/edge-1/tools/get_system_info", "{}", null);
    assertEquals(200, viaB.status(), viaB.body().encode());
    Response cluster = fleet.get("/api/v1/cluster");
    assertEquals(2, cluster.body().getJsonArray("members").size(), "only the two hubs are members: " + cluster.body());
    assertFalse(edgeNode.tail(2000).contains("Members {"), "the edge node runs no Hazelcast");
    if (netns != null) {
      // from the edge node's network: the edge endpoint, and nothing of the cluster
      assertTrue(netns.reaches(edgeHost, EDGE_A), "the edge endpoint is reachable from the node's network");
      assertFalse(netns.reaches(edgeHost, fleet.hubClusterPort), "the hub's cluster port is not");
      assertFalse(netns.reaches(edgeHost, fleet.httpPort), "the hub's HTTP port is not");
      assertFalse(netns.reaches("127.0.0.1", fleet.hubClusterPort), "nor anything on the hub machine's loopback");
    }
    assertTrue(hubA.tail(5000).contains("edge node proved itself [node: edge-1"), "linked through hub A's endpoint");
    assertEquals("edge", fleet.get("/api/v1/nodes/edge-1").body().getString("transport"));
    assertEquals("edge", fleet.sendTo(hubB.httpPort(), "GET", "/api/v1/nodes/edge-1", null, null).body()
      .getString("transport"), "hub B learns it with the shared registration");
  }

  @Test
  @Order(2)
  void tierThreeApprovalStreamsAndCancelCrossTheLink() {
    Vertx vertx = Vertx.vertx();
    try (WsTestClient ws = WsTestClient.connect(vertx, fleet, fleet.token(), 0)) {
      ws.send(new JsonObject().put("type", "call").put("id", "e3").put("node", "edge-1").put("tool", "run_command")
        .put("args", new JsonObject().put("command", "echo edge-approved")));
      JsonObject asked = ws.await("approval_required", "e3", Duration.ofSeconds(20));
      assertEquals(200, fleet.approve(asked.getString("approvalId"), "edge test").status());
      JsonObject chunk = ws.await("chunk", "e3", Duration.ofSeconds(20));
      assertEquals("edge-approved\n", chunk.getString("data"), chunk.encode());
      JsonObject result = ws.await("result", "e3", Duration.ofSeconds(20));
      assertEquals("edge-approved\n", result.getJsonObject("data").getString("stdout"), result.encode());
    } finally {
      vertx.close();
    }
    // a running command stopped through the other hub: the cancel crosses the cluster, then the link
    String callId = fleet.startApprovedCall(edgeNode, "edge-1", "run_command", "{\"command\": \"sleep 45\"}");
    Response cancelled = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/calls/" + callId + "/cancel", "", null);
    assertEquals(200, cancelled.status(), cancelled.body().encode());
    edgeNode.awaitLine("call cancelled \\[call: " + callId, Duration.ofSeconds(10));
    Response outcome = fleet.get("/api/v1/calls/" + callId + "?wait=20");
    assertEquals("cancelled", outcome.body().getString("status"), outcome.body().encode());
  }

  @Test
  @Order(3)
  void aNodePinningAnotherCertificateNeverLinks() {
    FleetProcess wrong = startEdge("edge-wrong-pin", "ab".repeat(32), Map.of());
    wrong.awaitLine("is not the one this node pinned", Duration.ofSeconds(30));
    assertEquals(404, fleet.get("/api/v1/nodes/edge-wrong-pin").status(), "never known to the fleet");
    wrong.kill();
  }

  @Test
  @Order(4)
  void aLinkThatDoesNotProveItselfIsClosed() throws Exception {
    // a node without credential or enrollment token: its hello is refused, and the hub closes the link
    FleetProcess stranger = startEdge("edge-stranger", pin, Map.of("FLEETBUS_ENROLLMENT_TOKEN", " "));
    hubA.awaitLine("edge link closed \\[peer: edge .*reason: hello refused for node edge-stranger", Duration.ofSeconds(30));
    assertEquals(404, fleet.get("/api/v1/nodes/edge-stranger").status());
    stranger.kill();
    // a client that sends anything before a hello (here a heartbeat in edge-1's name) is cut at once
    Vertx vertx = Vertx.vertx();
    try {
      Codecs.register(vertx);
      Promise<String> closed = Promise.promise();
      Promise<Throwable> refused = Promise.promise();
      // held until the end: Vert.x closes a client nobody holds (and its connections) when it is collected
      NetClient client = vertx.createNetClient(new NetClientOptions().setSsl(true).setTrustAll(true)
        .setHostnameVerificationAlgorithm(""));
      client.connect(EDGE_A, edgeHost).onSuccess(socket -> {
          EdgePeer peer = new EdgePeer(vertx, socket, "hub", EdgePeer.Limits.DEFAULT);
          peer.onWelcome(w -> peer.request(Addresses.HEARTBEAT, new Heartbeat("edge-1", "forged", 1, 0, null, "x"), null,
            5000).onComplete(ar -> refused.tryComplete(ar.cause()))).start();
          peer.closed().onSuccess(closed::tryComplete);
        }).onFailure(err -> {
          closed.tryFail(err);
          refused.tryFail(err);
        });
      Throwable err = refused.future().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertEquals(FailureCode.UNAUTHORIZED, FailureCode.of(err), String.valueOf(err));
      closed.future().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
      hubA.awaitLine("reason: a message before an accepted hello \\(fleet.heartbeat\\)", Duration.ofSeconds(10));
      client.close();
    } finally {
      vertx.close();
    }
  }

  /**
   * docs/operating.md's edge install, as an operator runs it on a machine without systemd (a container): the enrollment
   * answer's edgeEndpoints (joined by commas) and edgeCertSha256 into install-node.sh --edge --foreground, run in the
   * node's network namespace (it reaches only the edge ports). Two differences from the doc's block, both the
   * test's: --root (the machine's / is this one's) and a stand-in for {@code java -jar fleetbus-node.jar} that runs the
   * node from the test's classpath; root tier, because that classpath is in root's home, which the service user cannot
   * read.
   */
  @Test
  @Order(5)
  void aMachineInstalledWithEdgeEnrollsAndServes() throws Exception {
    Response enrollment = fleet.post("/api/v1/enrollments", new JsonObject().put("nodeId", "edge-installed").encode());
    assertEquals(201, enrollment.status(), enrollment.body().encode());
    String hubs = String.join(",", enrollment.body().getJsonArray("edgeEndpoints").stream().map(String::valueOf)
      .toList());
    java.nio.file.Path root = Files.createDirectories(fleet.dir.resolve("install-edge-installed"));
    java.nio.file.Path jar = Files.writeString(fleet.dir.resolve("edge-node.jar"), "the node runs from the classpath");
    List<String> install = new java.util.ArrayList<>(netns == null ? List.of() : netns.exec());
    install.addAll(List.of("bash", java.nio.file.Path.of("..", "scripts", "install-node.sh").toAbsolutePath().normalize()
      .toString(), "--root", root.toString(), "--jar", jar.toString(), "--java", javaFromClasspath().toString(),
      "--edge", "--hub", hubs, "--edge-cert-sha256", enrollment.body().getString("edgeCertSha256"),
      "--node-id", "edge-installed", "--tier", "root", "--foreground"));
    int mark = hubA.mark();
    FleetProcess node = fleet.closing(FleetProcess.start("edge-installed", install,
      Map.of("FLEETBUS_ENROLLMENT_TOKEN", enrollment.body().getString("token")), fleet.dir,
      fleet.dir.resolve("edge-installed.log")));
    node.awaitLine("running the node in the foreground", Duration.ofSeconds(30));
    hubA.awaitLine(TestFleet.onlineLine("edge-installed"), mark, TestFleet.START);
    JsonObject rec = fleet.get("/api/v1/nodes/edge-installed").body();
    assertEquals("edge", rec.getString("transport"), rec.encode());
    Response call = fleet.post("/api/v1/nodes/edge-installed/tools/get_agent_health", "{}");
    assertEquals(200, call.status(), call.body().encode());
    node.stop();
  }

  /** A {@code java} that runs {@code -jar X ...} as the node from this JVM's classpath (other flags kept). */
  private static java.nio.file.Path javaFromClasspath() throws java.io.IOException {
    java.nio.file.Path script = fleet.dir.resolve("java-from-classpath");
    Files.writeString(script, String.join("\n", "#!/bin/bash", "args=()",
      "while [[ $# -gt 0 ]]; do",
      "  if [[ $1 == -jar ]]; then args+=(-cp '" + System.getProperty("java.class.path") + "' io.fleetbus.node.boot.NodeMain);"
        + " shift 2; else args+=(\"$1\"); shift; fi",
      "done",
      "exec '" + ProcessHandle.current().info().command().orElse("java") + "' \"${args[@]}\"", ""));
    script.toFile().setExecutable(true);
    return script;
  }

  /**
   * The node's link drops without a goodbye (SIGKILL, a tier-3 call running): the hub holding it tells the fleet at
   * once, so both hubs show the node offline (reason link_lost) well before three silent heartbeat intervals would
   * (conf/hub.json's missedHeartbeats 3), and the call ends by the lost-call rule.
   */
  @Test
  @Order(6)
  void aKilledEdgeNodeIsOfflineOnBothHubsAtOnceAndComesBackWhenRestarted() {
    // a call running through the link when it drops: it ends by the lost-call rule as soon as the hub hears of it
    String callId = fleet.startApprovedCall(edgeNode, "edge-1", "run_command",
      "{\"command\": \"sleep 30\", \"timeout_seconds\": 60}");
    int mark = hubA.mark();
    int markB = hubB.process().mark();
    long killedAt = System.currentTimeMillis();
    edgeNode.kill();
    Response cut = fleet.get("/api/v1/calls/" + callId + "?wait=20");
    long cutMs = System.currentTimeMillis() - killedAt;
    assertEquals(503, cut.status(), cut.body().encode());
    String message = cut.body().getJsonObject("error").getString("message");
    assertTrue(message.contains("lost the edge link its calls went through")
      && message.contains("the outcome is unknown — query GET /api/v1/calls/" + callId), message);
    FleetProcess.Line onA = hubA.awaitLine(TestFleet.offlineLine("edge-1"), mark, Duration.ofSeconds(20));
    FleetProcess.Line onB = hubB.process().awaitLine(TestFleet.offlineLine("edge-1"), markB, Duration.ofSeconds(20));
    long msA = onA.readAtMillis() - killedAt;
    long msB = onB.readAtMillis() - killedAt;
    long heartbeatRule = 3 * fleet.heartbeatMs;
    assertTrue(onA.contains("reason: link_lost"), "hub A (held the link): " + onA.text());
    assertTrue(onB.contains("reason: link_lost"), "hub B (told by hub A): " + onB.text());
    assertTrue(msA < 2000 && msB < 2000 && cutMs < 2000, "offline after " + msA + " ms on hub A, " + msB + " ms on hub"
      + " B, the call in flight ended after " + cutMs + " ms (the heartbeat rule: " + heartbeatRule + " ms)");
    assertFalse(fleet.get("/api/v1/nodes/edge-1").body().getBoolean("online"));
    assertFalse(fleet.sendTo(hubB.httpPort(), "GET", "/api/v1/nodes/edge-1", null, null).body().getBoolean("online"));
    System.out.println("edge node SIGKILLed: offline (link_lost) on hub A after " + msA + " ms, on hub B after " + msB
      + " ms; its call in flight 503 outcome unknown after " + cutMs + " ms; the heartbeat rule would take "
      + heartbeatRule + " ms");
    FaultReport.record("20. SIGKILL an edge node mid-call (its TLS link drops without a goodbye)",
      "offline on both hubs by the link loss, well before 3 heartbeat intervals (" + heartbeatRule + " ms); the call"
        + " in flight ends 503 outcome unknown",
      "offline (link_lost) on the hub holding the link after " + msA + " ms, on the other hub after " + msB + " ms; 503"
        + " outcome unknown after " + cutMs + " ms");
    edgeNode = startEdge("edge-1", pin, Map.of());
    hubA.awaitLine(TestFleet.onlineLine("edge-1"), mark, TestFleet.START);
    Response again = fleet.post("/api/v1/nodes/edge-1/tools/get_agent_health", "{}");
    assertEquals(200, again.status(), again.body().encode());
  }

  /**
   * A node that relinked to the other hub is never taken offline by the first hub's link loss. To move edge-1 with
   * both hubs alive, the test links as edge-1 itself (its credential, from a copy of the node's trust folder, and its
   * instance): the hub replaces the node's link with the test's, the node links to the next hub of its list at once,
   * and when the test's link then closes, the hub's notice names a member the node is no longer tracked on. Done both
   * ways (A to B, then B to A, which leaves the node where the next test wants it).
   */
  @Test
  @Order(7)
  void aNodeRelinkedToTheOtherHubIsNotTakenOfflineByTheFirstHubsLinkLoss() throws Exception {
    JsonObject rec = fleet.get("/api/v1/nodes/edge-1").body();
    assertTrue(rec.getBoolean("online"), rec.encode());
    java.nio.file.Path trust = fleet.dir.resolve("impersonated-edge-1").resolve("trust");
    Files.createDirectories(trust);
    try (var files = Files.list(fleet.dir.resolve("node-edge-1").resolve("trust"))) {
      for (java.nio.file.Path f : files.filter(Files::isRegularFile).toList()) {
        Files.copy(f, trust.resolve(f.getFileName()));
      }
    }
    NodeCredentials asEdge1 = NodeCredentials.load("edge-1", trust.getParent(), null,
      io.fleetbus.shared.catalog.ToolCatalog.load());
    assertTrue(asEdge1.enrolled());
    int markA = hubA.mark();
    int markB = hubB.process().mark();
    Vertx vertx = Vertx.vertx();
    try {
      Codecs.register(vertx);
      NetClient client = vertx.createNetClient(new NetClientOptions().setSsl(true).setTrustAll(true)
        .setHostnameVerificationAlgorithm(""));
      int[][] moves = {{EDGE_A, EDGE_B}, {EDGE_B, EDGE_A}};
      for (int[] move : moves) {
        FleetProcess from = move[0] == EDGE_A ? hubA : hubB.process();
        int mark = edgeNode.mark();
        int moveA = hubA.mark();
        int moveB = hubB.process().mark();
        int fromMark = from.mark();
        EdgePeer taken = linkAs(vertx, client, asEdge1, rec, move[0]);
        from.awaitLine("reason: replaced by a newer link of node edge-1", fromMark, Duration.ofSeconds(10));
        edgeNode.awaitLine("linked to hub " + edgeHost + ":" + move[1], mark, Duration.ofSeconds(20));
        // both hubs track it on the other hub's member now (its own hello there; the shared registration here)
        hubA.awaitLine("node through another member \\[node: edge-1", moveA, Duration.ofSeconds(10));
        hubB.process().awaitLine("node through another member \\[node: edge-1", moveB, Duration.ofSeconds(10));
        int closeA = hubA.mark();
        int closeB = hubB.process().mark();
        taken.close("test: the replaced hub's link of edge-1 closes");
        from.awaitLine("edge link lost \\[node: edge-1", fromMark, Duration.ofSeconds(10));
        String unchanged = "edge link loss changes nothing \\[node: edge-1";
        hubA.awaitLine(unchanged, closeA, Duration.ofSeconds(10));
        hubB.process().awaitLine(unchanged, closeB, Duration.ofSeconds(10));
        System.out.println("edge-1 relinked from " + from.name() + " to the other hub; the link loss on " + from.name()
          + " changed nothing on either hub");
      }
    } finally {
      vertx.close();
    }
    // (a relink slower than 3 heartbeat intervals on a loaded machine may still show missed_heartbeats: that one is true)
    String offline = "node offline [node: edge-1, reason: link_lost]";
    String sinceA = hubA.tail(hubA.mark() - markA);
    String sinceB = hubB.process().tail(hubB.process().mark() - markB);
    assertFalse(sinceA.contains(offline), "hub A took the relinked node offline by a link loss: " + sinceA);
    assertFalse(sinceB.contains(offline), "hub B took the relinked node offline by a link loss: " + sinceB);
    Response viaB = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/nodes/edge-1/tools/get_agent_health", "{}", null);
    assertEquals(200, viaB.status(), viaB.body().encode());
    assertTrue(fleet.get("/api/v1/nodes/edge-1").body().getBoolean("online"));
    assertTrue(fleet.sendTo(hubB.httpPort(), "GET", "/api/v1/nodes/edge-1", null, null).body().getBoolean("online"));
  }

  /** Links to the edge endpoint at {@code port} and says edge-1's hello there (its process: {@code rec}'s instance). */
  private static EdgePeer linkAs(Vertx vertx, NetClient client, NodeCredentials creds, JsonObject rec, int port)
    throws Exception {
    Promise<EdgePeer> linked = Promise.promise();
    client.connect(port, edgeHost).onSuccess(socket -> {
      EdgePeer peer = new EdgePeer(vertx, socket, "hub", EdgePeer.Limits.DEFAULT);
      peer.onWelcome(w -> {
        NodeHello hello = creds.hello(new NodeHello("edge-1", rec.getString("instanceId"), w.getString("member"),
          rec.getString("platform"), rec.getString("capabilityTier"), rec.getJsonObject("labels"),
          rec.getString("agentVersion"), rec.getJsonArray("tools", new io.vertx.core.json.JsonArray()).stream()
            .map(t -> t instanceof JsonObject tool ? tool.getString("name") : String.valueOf(t)).toList(), null)).hello();
        peer.request(Addresses.HUB_REGISTER, hello, null, 20_000).onSuccess(a -> linked.tryComplete(peer))
          .onFailure(linked::tryFail);
      }).start();
    }).onFailure(linked::tryFail);
    return linked.future().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  @Order(8)
  void whenTheHubHoldingTheLinkDiesTheNodeLinksToTheOtherAndACallInFlightEndsByTheLostCallRule() {
    // a tier-3 call sent and approved through hub B, relayed by hub A (it holds the link) while it runs
    Response parked = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/nodes/edge-1/tools/run_command",
      "{\"command\": \"sleep 4\", \"timeout_seconds\": 60}", null);
    assertEquals(202, parked.status(), parked.body().encode());
    String callId = parked.body().getString("callId");
    Response approved = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/approvals/" + parked.body().getString("approvalId")
      + "/approve", "{\"reason\": \"edge relay test\"}", fleet.approverToken());
    assertEquals(200, approved.status(), approved.body().encode());
    edgeNode.awaitLine("privileged call started \\[call: " + Pattern.quote(callId), Duration.ofSeconds(20));

    int mark = edgeNode.mark();
    int markB = hubB.process().mark();
    long killedAt = System.nanoTime();
    hubA.kill();
    // the caller on hub B: the relay is gone (its member left, or the node relinked to B first, whichever B hears
    // first), so the outcome is unknown, said at once with where to ask
    Response cut = fleet.sendTo(hubB.httpPort(), "GET", "/api/v1/calls/" + callId + "?wait=20", null, null);
    long cutMs = (System.nanoTime() - killedAt) / 1_000_000;
    assertEquals(503, cut.status(), cut.body().encode());
    String message = cut.body().getJsonObject("error").getString("message");
    assertTrue(message.contains("the outcome is unknown — query GET /api/v1/calls/" + callId), message);
    assertTrue(cutMs < 2000, "the caller waited " + cutMs + " ms to learn the relaying hub was gone");

    edgeNode.awaitLine("linked to hub " + edgeHost + ":" + EDGE_B, mark, Duration.ofSeconds(10));
    // (from the mark: edge-1 proved itself on hub B before, when the previous test moved it there and back)
    hubB.process().awaitLine("edge node proved itself \\[node: edge-1", markB, Duration.ofSeconds(10));
    long relinkedMs = (System.nanoTime() - killedAt) / 1_000_000;
    assertTrue(relinkedMs < 10_000, "relinked after " + relinkedMs + " ms");
    Response afterKill = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/nodes/edge-1/tools/get_agent_health", "{}",
      null);
    assertEquals(200, afterKill.status(), afterKill.body().encode());

    // once the command ended on the node (journaled), GET /calls/{id} on hub B asks the node over the new link: the
    // call's real end, not 'running' or 'unknown' forever
    edgeNode.awaitLine("call outcome journaled \\[call: " + Pattern.quote(callId), mark, Duration.ofSeconds(20));
    Response truth = fleet.sendTo(hubB.httpPort(), "GET", "/api/v1/calls/" + callId, null, null);
    assertEquals(200, truth.status(), truth.body().encode());
    assertEquals(0, truth.body().getJsonObject("data").getInteger("exitCode"), truth.body().encode());
    assertTrue(truth.body().getString("resolution").startsWith("finished on the node"), truth.body().encode());
    assertEquals(1, edgeNode.tail(20_000).split("privileged call started \\[call: " + Pattern.quote(callId), -1).length - 1,
      "ran once");
    System.out.println("edge node relinked to hub B " + relinkedMs + " ms after hub A was killed; the call in flight"
      + " ended 503 outcome unknown after " + cutMs + " ms, then GET /calls/{id} on B: " + truth.body().getString("resolution"));
    FaultReport.record("20. SIGKILL the hub holding an edge node's link mid-call (sent through the other hub)",
      "caller gets 503 outcome unknown in < 2 s; the node relinks within 10 s; GET /calls/{id} then asks its journal",
      "503 \"outcome is unknown\" after " + cutMs + " ms; relinked after " + relinkedMs + " ms; GET /calls/{id} on B: "
        + truth.status() + " (" + truth.body().getString("resolution").replaceAll(" \\(node .*", "") + "); ran once");
  }

  /**
   * Issue 35: a cut that closes nothing (every frame dropped both ways, neither side told) for {@value #CUT_SECONDS} s,
   * then healed: calls through the fleet work again within a few seconds of the heal (the issue saw 23 s after a 60-s
   * cut). Runs last, on whichever hub holds the link by then (hub A is dead after the test before), calling through hub B.
   */
  @Test
  @Order(9)
  void afterASilentCutHealsCallsWorkAgainWithinSeconds() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(netns != null, "needs the edge node in a network namespace");
    assertEquals(200, firstCall(System.nanoTime()).status(), "edge-1 serves calls before the cut");
    int mark = edgeNode.mark();
    long cutAt;
    try (LinkCut link = new LinkCut(netns, netns.link())) {
      link.cut();
      cutAt = System.nanoTime();
      // the fault's length, not a wait for readiness: the link stays cut this long whatever either side does
      Thread.sleep(CUT_SECONDS * 1000L);
      link.heal();
    }
    long healedAt = System.nanoTime();
    Response call = firstCall(healedAt);
    long healToCallMs = (System.nanoTime() - healedAt) / 1_000_000;
    String lost = edgeNode.tail(edgeNode.mark() - mark);
    String detected = lost.lines().filter(l -> l.contains("lost: linking again")).findFirst().orElse("(no relink)");
    System.out.println("silent cut of " + CUT_SECONDS + " s: the first call after the heal answered " + call.status()
      + " " + healToCallMs + " ms after it; the node: " + detected + " ("
      + (System.nanoTime() - cutAt) / 1_000_000 + " ms since the cut)");
    assertEquals(200, call.status(), call.body().encode());
    FaultReport.record("35. a silent " + CUT_SECONDS + "-s cut of an edge node's link (every frame dropped, then healed)",
      "calls work again within a few seconds of the heal (the issue: 23 s after a 60-s cut)",
      "first call 200 " + healToCallMs + " ms after the heal");
    assertTrue(healToCallMs < 10_000, "calls worked again " + healToCallMs + " ms after the heal");
  }

  /** Calls edge-1 through hub B every 200 ms until one answers 200, or 60 s after {@code since}: the last answer. */
  private static Response firstCall(long since) throws InterruptedException {
    while (true) {
      Response call = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/nodes/edge-1/tools/get_agent_health", "{}", null);
      if (call.status() == 200 || System.nanoTime() - since > TimeUnit.SECONDS.toNanos(60)) {
        return call;
      }
      Thread.sleep(200);
    }
  }
}
