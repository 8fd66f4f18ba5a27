package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.NodeProofs;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A node's whole life with the hub: no token, no entry; a one-time token enrolls it (and nobody
 * after); rekey over the control address retires the old credential; revoke drops it until it
 * enrolls again.
 */
@Timeout(400)
@Tag("cluster")
class NodeEnrollmentTest {

  private static JsonObject identity(TestFleet fleet, String nodeId) throws Exception {
    return new JsonObject(Files.readString(fleet.dir.resolve("node-" + nodeId).resolve("trust").resolve("identity.json")));
  }

  @Test
  void enrollRekeyRevokeAndEnrollAgain() throws Exception {
    try (TestFleet fleet = new TestFleet(1000)) {
      fleet.hubConf(new JsonObject().put("enrollment", new JsonObject().put("rekeyGraceMs", 0)));
      FleetProcess hub = fleet.startHub();

      FleetProcess lonely = fleet.startNode("lonely", "sudo", new JsonObject(), Map.of("FLEETBUS_ENROLLMENT_TOKEN", ""));
      // n1 (enrolling with an unbound token) starts beside lonely: neither's hello depends on the other's
      Response unbound = fleet.post("/api/v1/enrollments", "{\"ttlMinutes\": 5}");
      assertEquals(201, unbound.status(), unbound.body().encode());
      String shared = unbound.body().getString("token");
      FleetProcess n1 = fleet.startNode("n1", "sudo", new JsonObject(), Map.of("FLEETBUS_ENROLLMENT_TOKEN", shared));
      hub.awaitLine("hello refused \\[node: lonely, code: 401, .*not enrolled", TestFleet.START);
      lonely.awaitLine("hello not accepted.*FLEETBUS_ENROLLMENT_TOKEN", TestFleet.START);
      lonely.kill();

      // a member that enrolls but never opens the answer (so could not verify a call) is not listed online
      try (RogueMember half = RogueMember.join(fleet, null)) {
        assertEquals(0, enrollWith(half, "half-enrolled", fleet.enrollmentToken("half-enrolled")));
        JsonObject listed = fleet.get("/api/v1/nodes/half-enrolled").body();
        assertEquals(false, listed.getBoolean("online"), "listed online before it could run a call: " + listed.encode());
      }

      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status(), "online means it runs calls");
      Path idFile = fleet.dir.resolve("node-n1").resolve("trust").resolve("identity.json");
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(idFile)));
      FleetProcess n2 = fleet.startNode("n2", "sudo", new JsonObject(), Map.of("FLEETBUS_ENROLLMENT_TOKEN", shared));
      hub.awaitLine("hello refused \\[node: n2, code: 401, .*already used by node 'n1'", TestFleet.START);
      n2.kill();

      String before = identity(fleet, "n1").getString("credential");
      Response rekey = fleet.post("/api/v1/nodes/n1/rekey", "");
      assertEquals(200, rekey.status(), rekey.body().encode());
      n1.awaitLine("credential rotated \\[node: n1\\]", Duration.ofSeconds(5));
      JsonObject after = identity(fleet, "n1");
      assertNotEquals(before, after.getString("credential"));
      assertEquals(before, after.getString("previousCredential"));
      assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status(), "results verify with the new key");
      try (RogueMember rogue = RogueMember.join(fleet, null)) {
        assertEquals(401, helloWith(rogue, before), "the old credential no longer opens the door");
        assertEquals(0, helloWithoutReply(rogue, after.getString("credential")), "the new one does");
      }

      Response revoked = fleet.send(java.net.http.HttpRequest.newBuilder(fleet.uri("/api/v1/nodes/n1")).DELETE(), fleet.token());
      assertEquals(200, revoked.status(), revoked.body().encode());
      assertEquals(404, fleet.get("/api/v1/nodes/n1").status());
      assertEquals(404, fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status());
      // a revoked node's heartbeats no longer verify: dropped before any handler (VerifiedFacts), the monitor included
      hub.awaitLine("unverified message dropped \\[address: fleet.heartbeat, type: heartbeat, node: n1, reason: unknown or"
        + " revoked node", Duration.ofSeconds(10));
      assertEquals(404, fleet.send(java.net.http.HttpRequest.newBuilder(fleet.uri("/api/v1/nodes/n1")).DELETE(),
        fleet.token()).status(), "nothing left to revoke");

      n1.kill();
      int mark = hub.mark();
      FleetProcess back = fleet.startNode("n1", "sudo");
      hub.awaitLine("hello refused \\[node: n1, code: 401, .*not enrolled \\(or was revoked\\)", mark, TestFleet.START);
      hub.awaitLine("node enrolled \\[node: n1", mark, TestFleet.START);
      hub.awaitLine(TestFleet.onlineLine("n1"), mark, TestFleet.START);
      back.awaitLine("enrolled with the hub", Duration.ofSeconds(5));
      assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status());

      var audit = fleet.get("/api/v1/audit?node=n1").body().getJsonArray("records");
      for (String action : List.of("node.enroll", "node.rekey", "node.revoke")) {
        assertTrue(audit.stream().map(JsonObject.class::cast).anyMatch(r -> action.equals(r.getString("tool"))),
          action + " audited: " + audit.encode());
      }
    }
  }

  /** A first hello of {@code nodeId} proved with a one-time enrollment token: 0 when the hub registered it. */
  private static int enrollWith(RogueMember rogue, String nodeId, String token) throws Exception {
    byte[] key = NodeProofs.keyOf(token);
    NodeHello hello = new NodeHello(nodeId, "half-instance", null, "linux", "sudo", new JsonObject(), "0.1.0", List.of(),
      new JsonObject().put("method", "enroll").put("tokenId", NodeProofs.tokenId(key)).put("sentAt", System.currentTimeMillis())
        .put("nonce", Digests.base64Url(Digests.randomBytes(16))));
    return request(rogue, hello.withAuth(hello.auth().copy().put("proof",
      NodeProofs.prove(key, NodeProofs.ENROLL, NodeProofs.helloContent(hello)))));
  }

  /** A hello as n1 proved with {@code credential}: the failure code, or 0 when the hub accepted it. */
  private static int helloWith(RogueMember rogue, String credential) throws Exception {
    NodeHello hello = new NodeHello("n1", "rogue-instance", null, "linux", "root", new JsonObject(), "0.1.0", List.of(),
      new JsonObject().put("method", "credential").put("sentAt", System.currentTimeMillis())
        .put("nonce", Digests.base64Url(Digests.randomBytes(16))));
    return request(rogue, hello.withAuth(hello.auth().copy().put("proof",
      NodeProofs.prove(NodeProofs.keyOf(credential), NodeProofs.HELLO, NodeProofs.helloContent(hello)))));
  }

  private static int request(RogueMember rogue, NodeHello hello) throws Exception {
    try {
      rogue.vertx().eventBus().request(Addresses.HUB_REGISTER, hello, new DeliveryOptions().setSendTimeout(10_000))
        .toCompletionStage().toCompletableFuture().get(15, TimeUnit.SECONDS);
      return 0;
    } catch (ExecutionException e) {
      return e.getCause() instanceof ReplyException re ? re.failureCode() : -1;
    }
  }

  /** Same, for a credential the hub should accept: 409 is fine too (n1 is online from another process). */
  private static int helloWithoutReply(RogueMember rogue, String credential) throws Exception {
    int code = helloWith(rogue, credential);
    return code == 409 ? 0 : code;
  }
}
