package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A run that handles secrets — user tokens, an enrollment token, the node credential, passwords in
 * arguments — leaves none of them in the logs or the hub's database, while the audit trail still
 * says who did what, with secrets masked, in a hash chain that verifies.
 */
@Timeout(300)
@Tag("cluster")
class AuditAndSecretsTest {

  @Test
  void auditTellsWhoDidWhatAndNoSecretIsWrittenDown() throws Exception {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hub = fleet.startHub();
      String enrollmentToken = fleet.enrollmentToken("n1");
      fleet.startNode("n1", "sudo", new JsonObject(), Map.of("FLEETBUS_ENROLLMENT_TOKEN", enrollmentToken));
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      long since = System.currentTimeMillis();

      String password = "Pw-" + UUID.randomUUID();
      String apiToken = "Tk-" + UUID.randomUUID();
      Response ran = fleet.post("/api/v1/nodes/n1/tools/run_command", new JsonObject()
        .put("command", "echo password=" + password).put("args", new JsonArray().add("--token").add(apiToken)).encode());
      assertEquals(200, fleet.approve(ran.body().getString("approvalId"), "ok to echo").status());
      Response result = fleet.get("/api/v1/calls/" + ran.body().getString("callId") + "?wait=30");
      assertEquals(200, result.status(), result.body().encode());
      assertEquals("password=" + password + " --token " + apiToken + "\n", result.body().getJsonObject("data").getString("stdout"),
        "the caller gets the real output");
      Response denied = fleet.post("/api/v1/nodes/n1/tools/run_command",
        new JsonObject().put("command", "echo secret=" + password).encode());
      assertEquals(200, fleet.deny(denied.body().getString("approvalId"), "no " + password).status());
      assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status());

      JsonArray mine = fleet.get("/api/v1/audit?principal=dev-admin&tool=run_command&since=" + since).body()
        .getJsonArray("records");
      assertEquals(2, mine.size(), mine.encode());
      JsonObject approved = mine.getJsonObject(1);
      assertEquals("approved", approved.getString("decision"));
      assertEquals("dev-approver", approved.getString("decider"));
      assertEquals("ok", approved.getString("outcome"));
      assertEquals(3, approved.getInteger("tier"));
      assertEquals("n1", approved.getString("nodeId"));
      assertTrue(approved.getLong("durationMs") >= 0);
      assertEquals("echo password=***MASKED***", approved.getJsonObject("args").getString("command"));
      assertEquals(new JsonArray().add("--token").add("***MASKED***"), approved.getJsonObject("args").getJsonArray("args"));
      assertEquals(64, approved.getString("argsSha256").length());
      JsonObject refused = mine.getJsonObject(0);
      assertEquals("denied", refused.getString("decision"));
      assertEquals(403, refused.getInteger("code"));
      assertEquals(1, fleet.get("/api/v1/audit?outcome=denied").body().getJsonArray("records").size());
      assertEquals(1, fleet.get("/api/v1/audit?tool=get_agent_health&node=n1&outcome=ok").body().getInteger("count"));
      assertEquals(1, fleet.get("/api/v1/audit?limit=1").body().getJsonArray("records").size());
      assertEquals(0, fleet.get("/api/v1/audit?since=" + (System.currentTimeMillis() + 60_000)).body().getInteger("count"));
      assertEquals(400, fleet.get("/api/v1/audit?since=yesterday").status());
      JsonObject verify = fleet.get("/api/v1/audit/verify").body();
      assertTrue(verify.getBoolean("ok"), verify.encode());
      assertTrue(verify.getLong("records") >= 4, verify.encode());

      String credential = new JsonObject(Files.readString(fleet.dir.resolve("node-n1").resolve("trust")
        .resolve("identity.json"))).getString("credential");
      List<String> secrets = List.of(fleet.token(), fleet.approverToken(), enrollmentToken, credential, password, apiToken);
      List<Path> written = new ArrayList<>(List.of(fleet.dir.resolve("hub.log"), fleet.dir.resolve("node-n1.log")));
      try (Stream<Path> db = Files.list(fleet.dir.resolve("hub"))) {
        db.filter(p -> p.getFileName().toString().startsWith("fleetbus.db")).forEach(written::add);
      }
      assertTrue(written.size() >= 3, written.toString());
      for (Path file : written) {
        String content = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
        for (String secret : secrets) {
          assertFalse(content.contains(secret), file.getFileName() + " holds a secret ("
            + secret.substring(0, 4) + "…)");
        }
      }
    }
  }
}
