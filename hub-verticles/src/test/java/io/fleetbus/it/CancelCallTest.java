package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Cancel over REST reaches the node and kills the process; a pending call is withdrawn without running. */
@Timeout(120)
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

      Response result = fleet.get("/api/v1/calls/" + callId + "?wait=10");
      assertEquals(500, result.status(), result.body().encode());
      assertTrue(result.body().getJsonObject("error").getString("message").startsWith("cancelled"));
      assertEquals(409, fleet.post("/api/v1/calls/" + callId + "/cancel", "").status(), "finished calls stay finished");

      Response parked = fleet.post("/api/v1/nodes/n1/tools/run_command", "{\"command\": \"sleep 1\"}");
      Response withdrawn = fleet.post("/api/v1/calls/" + parked.body().getString("callId") + "/cancel", "");
      assertEquals(200, withdrawn.status(), withdrawn.body().encode());
      assertEquals(false, withdrawn.body().getBoolean("ran"));
      assertEquals(409, fleet.approve(parked.body().getString("approvalId"), null).status());
    }
  }
}
