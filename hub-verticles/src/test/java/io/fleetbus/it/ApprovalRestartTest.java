package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pending approval survives a SIGKILL of the hub JVM; after the restart another person approves it,
 * it runs exactly once, and the audit trail says who decided.
 */
@Timeout(300)
@Tag("cluster")
class ApprovalRestartTest {

  @Test
  void pendingApprovalSurvivesAHubRestartAndRunsOnce() throws Exception {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hub = fleet.startHub();
      FleetProcess node = fleet.startNode("n1", "sudo");
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);

      Response pending = fleet.post("/api/v1/nodes/n1/tools/run_command", "{\"command\": \"echo after-restart\"}");
      assertEquals(202, pending.status(), pending.body().encode());
      String approvalId = pending.body().getString("approvalId");
      String callId = pending.body().getString("callId");
      Response self = fleet.post("/api/v1/approvals/" + approvalId + "/approve", "{}");
      assertEquals(403, self.status(), "the requester may not approve their own call");
      assertTrue(self.body().getJsonObject("error").getString("message").contains("allowSelfApproval"));

      // a denial whose audit commit the kill beat: the decision is stored, its audit entry (the last one) is not
      Response denied = fleet.post("/api/v1/nodes/n1/tools/run_command", "{\"command\": \"echo never\"}");
      assertEquals(200, fleet.deny(denied.body().getString("approvalId"), "not today").status());
      String deniedCall = denied.body().getString("callId");
      // issue 34: the deny was told only once n1's journal held it (a later delivery of that call is refused there)
      node.awaitLine("decision arbitrated \\[call: " + deniedCall + ", decision: denied, by: dev-approver, journaled: now",
        Duration.ofSeconds(5));
      hub.kill();
      try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + fleet.dir.resolve("hub").resolve("fleetbus.db"));
           Statement s = db.createStatement()) {
        s.execute("DROP TRIGGER audit_no_delete");
        assertEquals(1, s.executeUpdate("DELETE FROM audit WHERE call_id = '" + deniedCall + "' AND seq = (SELECT max(seq)"
          + " FROM audit)"));
      }
      FleetProcess hub2 = fleet.startHub("hub2", Map.of());
      hub2.awaitLine("approvals restored \\[pending: 1", Duration.ofSeconds(5));
      hub2.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      JsonArray listed = fleet.get("/api/v1/approvals?status=pending").body().getJsonArray("approvals");
      JsonObject restored = listed.stream().map(JsonObject.class::cast)
        .filter(a -> approvalId.equals(a.getString("approvalId"))).findFirst().orElseThrow();
      assertEquals("echo after-restart", restored.getJsonObject("args").getString("command"));
      assertEquals("dev-admin", restored.getString("requester"));
      assertEquals(202, fleet.get("/api/v1/calls/" + callId).status(), "still waiting, not run");

      Response approved = fleet.approve(approvalId, "checked after the restart");
      assertEquals(200, approved.status());
      assertEquals("journaled on node n1", approved.body().getString("delivery"), "told once n1 journaled the call");
      Response result = fleet.get("/api/v1/calls/" + callId + "?wait=30");
      assertEquals(200, result.status(), result.body().encode());
      assertEquals("after-restart\n", result.body().getJsonObject("data").getString("stdout"));
      assertEquals(409, fleet.approve(approvalId, null).status());
      assertEquals(1, node.tail(10_000).split("privileged call started \\[call: " + callId, -1).length - 1,
        "ran exactly once");

      JsonArray audit = fleet.get("/api/v1/audit?tool=run_command&node=n1").body().getJsonArray("records");
      JsonObject rec = audit.stream().map(JsonObject.class::cast).filter(r -> callId.equals(r.getString("callId")))
        .findFirst().orElseThrow(() -> new AssertionError(audit.encode()));
      assertEquals("approved", rec.getString("decision"));
      assertEquals("dev-approver", rec.getString("decider"));
      assertEquals("checked after the restart", rec.getString("reason"));
      assertEquals("ok", rec.getString("outcome"));
      assertEquals("dev-admin", rec.getString("principal"));
      JsonObject deniedRec = fleet.get("/api/v1/audit?tool=run_command&outcome=denied").body().getJsonArray("records")
        .stream().map(JsonObject.class::cast).filter(r -> deniedCall.equals(r.getString("callId"))).findFirst()
        .orElseThrow(() -> new AssertionError("the restarted hub left the denial unaudited"));
      assertEquals("dev-approver", deniedRec.getString("decider"));
      JsonObject verify = fleet.get("/api/v1/audit/verify").body();
      assertTrue(verify.getBoolean("ok"), verify.encode());
    }
  }
}
