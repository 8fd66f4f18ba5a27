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
class EdgeNodeTest {
  private static TestFleet fleet;
  private static FleetProcess hubA;
  private static PeerHub hubB;
  private static FleetProcess edgeNode;
  private static final int EDGE_A = TestFleet.freePort();
  private static final int EDGE_B = TestFleet.freePort();
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

  @Test
  @Order(5)
  void aMachineInstalledWithEdgeEnrollsAndServes() throws Exception {
    // what an operator does: the enrollment answer's edgeEndpoint and edgeCertSha256 into install-node.sh --edge
    java.nio.file.Path root = fleet.installNode("edge-installed", "--edge", "--hub", edgeHost + ":" + EDGE_A,
      "--edge-cert-sha256", pin, "--tier", "unprivileged");
    int mark = hubA.mark();
    fleet.startInstalled(root, "edge-installed", Map.of());
    hubA.awaitLine(TestFleet.onlineLine("edge-installed"), mark, TestFleet.START);
    JsonObject node = fleet.get("/api/v1/nodes/edge-installed").body();
    assertEquals("edge", node.getString("transport"), node.encode());
    Response call = fleet.post("/api/v1/nodes/edge-installed/tools/get_agent_health", "{}");
    assertEquals(200, call.status(), call.body().encode());
  }

  @Test
  @Order(6)
  void aKilledEdgeNodeGoesOfflineAndComesBackWhenRestarted() {
    int mark = hubA.mark();
    edgeNode.kill();
    hubA.awaitLine(TestFleet.offlineLine("edge-1"), mark, Duration.ofSeconds(20));
    assertFalse(fleet.get("/api/v1/nodes/edge-1").body().getBoolean("online"));
    edgeNode = startEdge("edge-1", pin, Map.of());
    hubA.awaitLine(TestFleet.onlineLine("edge-1"), mark, TestFleet.START);
    Response again = fleet.post("/api/v1/nodes/edge-1/tools/get_agent_health", "{}");
    assertEquals(200, again.status(), again.body().encode());
  }

  @Test
  @Order(7)
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
    hubB.process().awaitLine("edge node proved itself \\[node: edge-1", Duration.ofSeconds(10));
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
}
