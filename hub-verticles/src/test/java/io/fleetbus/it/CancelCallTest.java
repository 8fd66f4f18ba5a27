package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Cancel over REST reaches the node and kills the process; a pending call is withdrawn without running. Both end
 * {@code cancelled} (not an error) in the call record, the audit and the hub's call log.
 */
@Timeout(120)
@Tag("cluster")
class CancelCallTest {

  @Test
  void runningCommandIsKilledAndPendingCallWithdrawn() {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hub = fleet.startHub();
      FleetProcess node = fleet.startNode("n1", "sudo", new JsonObject().put("allowlist", new JsonArray().add("sleep")));
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);

      Response pending = fleet.post("/api/v1/nodes/n1/tools/run_command", "{\"command\": \"sleep 45\"}");
      String callId = pending.body().getString("callId");
      fleet.approve(pending.body().getString("approvalId"), null);
      assertEquals(202, fleet.get("/api/v1/calls/" + callId).status(), "still running");
      node.awaitLine("privileged call started \\[call: " + callId, Duration.ofSeconds(20));
      Response cancelled = fleet.post("/api/v1/calls/" + callId + "/cancel", "");
      assertEquals(200, cancelled.status(), cancelled.body().encode());
      assertTrue(cancelled.body().getBoolean("cancelled"));
      node.awaitLine("call cancelled \\[call: " + callId, Duration.ofSeconds(10));

      // a cancel is an outcome, not an error: 200, status cancelled, who did it; no error code
      Response result = fleet.get("/api/v1/calls/" + callId + "?wait=10");
      assertEquals(200, result.status(), result.body().encode());
      assertEquals("cancelled", result.body().getString("status"), result.body().encode());
      assertNull(result.body().getValue("error"), result.body().encode());
      assertEquals("dev-admin", result.body().getJsonObject("data").getString("cancelledBy"));
      assertTrue(result.body().getJsonObject("data").getString("message").contains("run_command was stopped"));
      assertEquals(409, fleet.post("/api/v1/calls/" + callId + "/cancel", "").status(), "finished calls stay finished");

      Response parked = fleet.post("/api/v1/nodes/n1/tools/run_command", "{\"command\": \"sleep 1\"}");
      String parkedId = parked.body().getString("callId");
      Response withdrawn = fleet.post("/api/v1/calls/" + parkedId + "/cancel", "");
      assertEquals(200, withdrawn.status(), withdrawn.body().encode());
      assertEquals(false, withdrawn.body().getBoolean("ran"));
      assertEquals(409, fleet.approve(parked.body().getString("approvalId"), null).status());
      Response never = fleet.get("/api/v1/calls/" + parkedId);
      assertEquals(200, never.status(), never.body().encode());
      assertEquals("cancelled", never.body().getString("status"));
      assertTrue(never.body().getJsonObject("data").getString("message").contains("never ran"), never.body().encode());

      // the audit says cancelled for both (the filter finds them), with no error code, and its chain still verifies
      Response audit = fleet.get("/api/v1/audit?outcome=cancelled");
      assertEquals(200, audit.status(), audit.body().encode());
      for (String id : new String[] {callId, parkedId}) {
        JsonObject entry = audit.body().getJsonArray("records").stream().map(JsonObject.class::cast)
          .filter(e -> id.equals(e.getString("callId"))).findFirst()
          .orElseThrow(() -> new AssertionError("no cancelled audit entry for " + id + ": " + audit.body().encode()));
        assertEquals("cancelled", entry.getString("outcome"), entry.encode());
        assertNull(entry.getValue("code"), entry.encode());
      }
      Response verify = fleet.get("/api/v1/audit/verify");
      assertEquals(true, verify.body().getBoolean("ok"), verify.body().encode());
      hub.awaitLine("call finished \\[call: " + callId + ", .*outcome: cancelled", Duration.ofSeconds(10));
    }
  }
}
