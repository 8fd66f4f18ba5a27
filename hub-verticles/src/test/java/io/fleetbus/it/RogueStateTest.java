package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.Ed25519Keys;
import io.fleetbus.shared.trust.EdDsaJws;
import io.fleetbus.shared.trust.NodeProofs;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 32, item 1: a keyless Hazelcast member (here a data member, which keeps the maps while the only hub restarts)
 * writes, overwrites and removes entries of the fleet's maps — junk, an entry copied from another key, an earlier
 * entry written back — and no hub takes any of it: a revoked node is not admitted again, a denied approval is not
 * re-opened, a hub restarts (with no memory but its SQLite copy) and refuses no start. With the check off
 * ({@code -Dfleetbus.fault.noSharedFreshness=true -Dfleetbus.testRun=true}) the two replays succeed (the hub logs
 * "credential changed by another hub", the revoked credential says hello with 0, the approve answers 200 and the
 * denied command runs), the hub's own entry in fleetbus.hubs stays removed, and the restarted hub refuses to start
 * ("another fleet's hub"): each of the first four tests fails (seen: 4 of 4).
 * Item 3: the only hub restarts once more, the rogue still there, and the node must find it (the fifth test; switch
 * {@code -Dfleetbus.fault.noHublessRejoin=true}). The tests build on each other (a replay made in one is still in the map at the restart): run in order.
 */
@Timeout(400)
@Tag("cluster")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RogueStateTest {
  static TestFleet fleet;
  static FleetProcess hub;
  static RogueMember rogue;
  /** n2's credential, as a thief with a copy of its data folder has it; n2 is revoked in the first test. */
  static String n2Credential;
  static String deniedApproval;
  static Path deniedTarget;
  static FleetProcess restarted;
  static FleetProcess n1;

  @BeforeAll
  static void startFleet() throws Exception {
    fleet = new TestFleet(1000);
    hub = fleet.startHub();
    n1 = fleet.startNode("n1", "sudo", new JsonObject().put("allowlist", new JsonArray().add("touch")));
    FleetProcess n2 = fleet.startNode("n2", "sudo");
    hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
    hub.awaitLine(TestFleet.onlineLine("n2"), TestFleet.START);
    n2Credential = identity("n2").getString("credential");
    n2.kill();
    rogue = fleet.closing(RogueMember.join(fleet, null, false));
  }

  @AfterAll
  static void stopFleet() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  @Order(1)
  void aCredentialWrittenBackAfterARevokeAdmitsNoNode() throws Exception {
    String saved = rogue.readEntry("fleetbus.credentials", "n2");
    assertNotNull(saved, "n2's credential is in the fleet's map");
    Response revoked = fleet.send(HttpRequest.newBuilder(fleet.uri("/api/v1/nodes/n2")).DELETE(), fleet.token());
    assertEquals(200, revoked.status(), revoked.body().encode());
    int mark = hub.mark();
    rogue.writeMap("fleetbus.credentials", "n2", saved);
    FleetProcess.Line verdict = hub.awaitLine("shared entry refused \\[map: fleetbus.credentials, key: n2,"
      + "|credential changed by another hub \\[node: n2, revoked: false", mark, Duration.ofSeconds(10));
    assertFalse(verdict.contains("credential changed"), "the replay was taken: " + verdict.text());
    assertEquals(401, helloAs("n2", n2Credential), "the revoked credential is admitted again");
    assertEquals(404, fleet.post("/api/v1/nodes/n2/tools/get_agent_health", "{}").status());
    FaultReport.record("32.1 A keyless member writes back n2's credential entry saved before n2 was revoked",
      "refused as a replay; n2's credential is not admitted", verdict.text().replaceAll(".*(shared entry refused)", "$1")
        + "; hello with the revoked credential: 401");
  }

  @Test
  @Order(2)
  void aPendingApprovalWrittenBackAfterADenyIsNotReopened() throws Exception {
    deniedTarget = fleet.dir.resolve("denied-but-ran");
    Response parked = fleet.post("/api/v1/nodes/n1/tools/run_command",
      new JsonObject().put("command", "touch " + deniedTarget).encode());
    assertEquals(202, parked.status(), parked.body().encode());
    deniedApproval = parked.body().getString("approvalId");
    String saved = rogue.readEntry("fleetbus.approvals", deniedApproval);
    assertNotNull(saved, "the pending approval is in the fleet's map");
    assertEquals(200, fleet.deny(deniedApproval, "not today").status());
    rogue.writeMap("fleetbus.approvals", deniedApproval, saved);
    Response approved = fleet.approve(deniedApproval, "after the replay");
    assertEquals(409, approved.status(), "a denied approval was re-opened: " + approved.body().encode());
    assertTrue(approved.body().encode().contains("already denied"), approved.body().encode());
    assertFalse(Files.exists(deniedTarget), "the denied command ran");
    FaultReport.record("32.1 A keyless member writes back a pending approval's entry after it was denied",
      "the approve is refused (409 already denied); the command never runs", "409: "
        + approved.body().getJsonObject("error", new JsonObject()).getString("message", approved.body().encode()));
  }

  @Test
  @Order(3)
  void theHubsOwnEntryRemovedOrOverwrittenIsPutBack() throws Exception {
    String self = fleet.get("/api/v1/cluster").body().getJsonArray("members").stream().map(JsonObject.class::cast)
      .filter(m -> m.getBoolean("self", false)).findFirst().orElseThrow().getString("member");
    String statement = rogue.readEntry("fleetbus.hubs", self);
    var back = rogue.nextWrite("fleetbus.hubs", self);
    rogue.removeEntry("fleetbus.hubs", self);
    assertEquals(statement, back.get(10, TimeUnit.SECONDS), "put back after a remove");
    back = rogue.nextWrite("fleetbus.hubs", self);
    rogue.writeMap("fleetbus.hubs", self, "junk");
    hub.awaitLine("this hub's entry in fleetbus.hubs was changed by member", Duration.ofSeconds(10));
    assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status());
    assertEquals(statement, rogue.readEntry("fleetbus.hubs", self), "put back after an overwrite");
  }

  /**
   * The only hub restarts while the rogue keeps the maps: a junk "another fleet" hub entry, an entry copied to
   * another key, junk in the sealed maps, and the two replays above. The hub starts (no memory of the maps' versions:
   * its SQLite copy has n2's revocation and the approval's denial), admits neither n2 nor the copied credential,
   * re-opens nothing, and n1 is online again.
   */
  @Test
  @Order(4)
  void aRestartedHubRefusesNoStartAndTakesNoJunkOrReplay() throws Exception {
    assertNotNull(deniedApproval, "runs after the replays above");
    rogue.writeMap("fleetbus.hubs", rogue.memberId(), EdDsaJws.sign(Ed25519Keys.privateKey(Ed25519Keys.generatePem()[0]),
      "hub", new JsonObject().put("member", rogue.memberId()).put("fleetId", "0123456789ab")));
    rogue.writeMap("fleetbus.credentials", "n3", rogue.readEntry("fleetbus.credentials", "n1"));
    for (String map : List.of("fleetbus.approvals", "fleetbus.calls", "fleetbus.calls.open", "fleetbus.idempotency",
      "fleetbus.revocations", "fleetbus.enrollments", "fleetbus.nodes")) {
      rogue.writeMap(map, "junk-" + map, "junk");
      rogue.writeMap(map, "stamped-" + map, System.currentTimeMillis() + ".junk");
    }
    hub.stop();
    long restartAt = System.currentTimeMillis();
    // a hub's members list names the hubs' ports; the rogue holds the maps, so the restarted hub is told its port too
    restarted = fleet.startHub("hub-restarted", Map.of("FLEETBUS_CLUSTER_MEMBERS",
      "127.0.0.1:" + fleet.hubClusterPort + ",127.0.0.1:" + rogue.clusterPort()));
    restarted.awaitLine(TestFleet.onlineLine("n1"), Duration.ofSeconds(30));
    long onlineAfter = System.currentTimeMillis() - restartAt;
    restarted.awaitLine("a member claims to be a hub of another fleet, unverifiable", Duration.ofSeconds(5));
    restarted.awaitLine("shared credential refused \\[node: n2", Duration.ofSeconds(5));
    assertFalse(restarted.tail(2000).contains("credential changed by another hub [node: n2, revoked: false"));
    assertEquals(401, helloAs("n2", n2Credential), "n2 is revoked after the restart too");
    assertEquals(401, helloAs("n3", identity("n1").getString("credential")), "n1's entry copied to n3 admits no n3");
    Response approved = fleet.approve(deniedApproval, "after the restart");
    assertEquals(409, approved.status(), "re-opened after the restart: " + approved.body().encode());
    assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status());
    assertFalse(Files.exists(deniedTarget), "the denied command ran");
    FaultReport.record("32.1 The only hub restarts with a data-member rogue holding junk, copied and replayed entries",
      "it starts; admits no revoked or copied credential; re-opens no decision", "started; n2 and n3 hello 401;"
        + " approve 409; n1 online " + onlineAfter + " ms after the restart began");
  }

  /**
   * Issue 32, item 3: the only hub restarts while the data-member rogue is in the cluster, now with its ordinary members
   * list (it knows no rogue, so it forms a cluster of its own; the node stays with the rogue, a data member). The rogue
   * stays until the node is online again or the two clusters merged, then leaves. The node must be online at the hub
   * within 20 s of the hub being ready and within 10 s of the rogue leaving. With
   * {@code -Dfleetbus.fault.noHublessRejoin=true} the node waits in the rogue's cluster until the clusters merge (seen:
   * online 40 s after the hub was ready); when its side merged into the hub's (its member id reset), it no longer knows
   * which member is a hub and says hello to nobody for as long as it runs (seen: not online 40 s after the rogue left).
   */
  @Test
  @Order(5)
  void aNodeFindsTheRestartedHubWithinTenSecondsOfTheRogueLeaving() throws Exception {
    assertNotNull(restarted, "runs after the restart above");
    CompletableFuture<Void> merged = rogue.merged();
    restarted.stop();
    long restartAt = System.currentTimeMillis();
    FleetProcess again = fleet.startHub("hub-again", Map.of());
    long readyAt = System.currentTimeMillis();
    CompletableFuture<FleetProcess.Line> online = CompletableFuture.supplyAsync(() ->
      again.awaitLine(TestFleet.onlineLine("n1"), Duration.ofSeconds(90)));
    CompletableFuture.anyOf(online, merged).get(60, TimeUnit.SECONDS);
    rogue.close();
    long goneAt = System.currentTimeMillis();
    FleetProcess.Line line;
    try {
      line = online.get(11, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("n1 is not online 11 s after the rogue left; its log:\n" + n1.tail(15));
    }
    long after = line.readAtMillis() - goneAt;
    assertTrue(after <= 10_000, "n1 came online " + after + " ms after the rogue left");
    // nor does the rogue's presence keep it offline for long: it leaves a cluster with no proven hub after 10 s (then
    // rejoins and says hello: 2.8-3.4 s quiet, 10.1 s once on 2 cores running two other cluster classes)
    assertTrue(line.readAtMillis() - readyAt <= 25_000, "n1 came online " + (line.readAtMillis() - readyAt)
      + " ms after the hub was ready (the rogue there)");
    FaultReport.record("32.3 The only hub restarts (its own members list) while a data-member rogue keeps the node in a"
        + " cluster of its own", "the node is online at the hub within 10 s of the rogue leaving", after <= 0
        ? "online " + (line.readAtMillis() - restartAt) + " ms after the hub was stopped, the rogue still there"
        : "online " + after + " ms after the rogue left");
  }

  private static JsonObject identity(String nodeId) throws Exception {
    return new JsonObject(Files.readString(fleet.dir.resolve("node-" + nodeId).resolve("trust").resolve("identity.json")));
  }

  /** A hello as {@code nodeId} proved with {@code credential}, sent by the rogue: the failure code, 0 when admitted. */
  private static int helloAs(String nodeId, String credential) throws Exception {
    NodeHello hello = new NodeHello(nodeId, "rogue-instance", null, "linux", "root", new JsonObject(), "0.1.0", List.of(),
      new JsonObject().put("method", "credential").put("sentAt", System.currentTimeMillis())
        .put("nonce", Digests.base64Url(Digests.randomBytes(16))));
    NodeHello proved = hello.withAuth(hello.auth().copy().put("proof",
      NodeProofs.prove(NodeProofs.keyOf(credential), NodeProofs.HELLO, NodeProofs.helloContent(hello))));
    try {
      rogue.vertx().eventBus().request(Addresses.HUB_REGISTER, proved, new DeliveryOptions().setSendTimeout(10_000))
        .toCompletionStage().toCompletableFuture().get(15, TimeUnit.SECONDS);
      return 0;
    } catch (ExecutionException e) {
      return e.getCause() instanceof ReplyException re ? re.failureCode() : -1;
    }
  }
}
