package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.PeerHub;
import io.fleetbus.it.TestFleet.Response;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fault scenario 3: two hubs share the fleet's live state through Hazelcast maps. A tier-3 call is
 * parked on hub A; A is SIGKILLed; a person approves on hub B; the call runs exactly once and the
 * frontend connected to B gets its result. On the way: either hub serves any call, and a call record
 * made on A is still answered by B after A is gone.
 */
@Timeout(300)
class TwoHubsTest {

  @Test
  void approvalMadeOnHubARunsOnceWhenApprovedOnHubBAfterAIsKilled() {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hubA = fleet.startHub();
      PeerHub hubB = fleet.startPeerHub("hub-b", 1);
      FleetProcess node = fleet.startNode("n1", "sudo");
      hubA.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      hubB.process().awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);

      // any hub serves any frontend: the node said hello to one of them, both route to it
      Response viaB = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/nodes/n1/tools/get_agent_health", "{}", null);
      assertEquals(200, viaB.status(), viaB.body().encode());
      Response viaA = fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}");
      assertEquals(200, viaA.status(), viaA.body().encode());
      String callOnA = viaA.body().getString("callId");

      Response parked = fleet.post("/api/v1/nodes/n1/tools/run_command", "{\"command\": \"echo approved-on-b\"}");
      assertEquals(202, parked.status(), parked.body().encode());
      String approvalId = parked.body().getString("approvalId");
      String callId = parked.body().getString("callId");

      long killedAt = System.nanoTime();
      hubA.kill();

      Response pendingOnB = fleet.sendTo(hubB.httpPort(), "GET", "/api/v1/approvals?status=pending", null, null);
      assertTrue(pendingOnB.body().getJsonArray("approvals").stream().map(JsonObject.class::cast)
        .anyMatch(a -> approvalId.equals(a.getString("approvalId"))), "hub B lists A's pending approval: " + pendingOnB.body());
      assertEquals(202, fleet.sendTo(hubB.httpPort(), "GET", "/api/v1/calls/" + callId, null, null).status(),
        "hub B knows the parked call and that it has not run");

      Response approved = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/approvals/" + approvalId + "/approve",
        "{\"reason\": \"hub A is gone\"}", fleet.approverToken());
      assertEquals(200, approved.status(), approved.body().encode());
      Response result = fleet.sendTo(hubB.httpPort(), "GET", "/api/v1/calls/" + callId + "?wait=30", null, null);
      long ms = (System.nanoTime() - killedAt) / 1_000_000;
      assertEquals(200, result.status(), result.body().encode());
      assertEquals("approved-on-b\n", result.body().getJsonObject("data").getString("stdout"));

      Response again = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/approvals/" + approvalId + "/approve", "{}",
        fleet.approverToken());
      assertEquals(409, again.status(), "decided once, fleet-wide");
      assertEquals(1, node.tail(10_000).split("privileged call started \\[call: " + callId, -1).length - 1,
        "ran exactly once");

      Response recordOfA = fleet.sendTo(hubB.httpPort(), "GET", "/api/v1/calls/" + callOnA, null, null);
      assertEquals(200, recordOfA.status(), "a call record made on A outlives A: " + recordOfA.body().encode());
      assertNotNull(recordOfA.body().getJsonObject("data"));

      FaultReport.record("Two hubs: tier-3 call parked on hub A, A SIGKILLed, approved on hub B",
        "the call runs exactly once; the frontend on B gets the result; A's records still answered by B",
        "B listed A's pending approval, approved it (a second approval: 409), result on B " + ms
          + " ms after the kill; the node ran it once; a call record made on A answered by B");
    }
  }
}
