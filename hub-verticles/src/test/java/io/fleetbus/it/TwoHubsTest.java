package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.PeerHub;
import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fault scenario 3: two hubs share the fleet's live state through Hazelcast maps. A tier-3 call is
 * parked on hub A; A is SIGKILLed; a person approves on hub B; the call runs exactly once and the
 * frontend connected to B gets its result. On the way: either hub serves any call, and a call record
 * made on A is still answered by B after A is gone.
 */
@Timeout(300)
@Tag("cluster")
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

      // a config_update made through hub B: hub A knows the new labels and judges the node by its new rhythm
      Response updated = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/nodes/n1/config",
        "{\"heartbeatIntervalMs\": 3000, \"labels\": {\"site\": \"lab-b\"}}", null);
      assertEquals(200, updated.status(), updated.body().encode());
      hubA.awaitLine("node settings changed through another hub \\[node: n1", Duration.ofSeconds(20));
      JsonObject seenOnA = fleet.get("/api/v1/nodes/n1").body();
      assertEquals(3000, seenOnA.getInteger("heartbeatIntervalMs"), seenOnA.encode());
      assertEquals("lab-b", seenOnA.getJsonObject("labels").getString("site"), seenOnA.encode());

      // Idempotency-Key: a retry through the other hub gets the first call (same id, same result), never a second run
      String key = "retry-" + System.nanoTime();
      Response first = fleet.sendTo(fleet.httpPort, "POST", "/api/v1/nodes/n1/tools/get_agent_health", "{}", null,
        "Idempotency-Key", key);
      Response retried = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/nodes/n1/tools/get_agent_health", "{}", null,
        "Idempotency-Key", key);
      assertEquals(200, retried.status(), retried.body().encode());
      assertEquals(first.body().getString("callId"), retried.body().getString("callId"));
      assertEquals(first.body().getJsonObject("data"), retried.body().getJsonObject("data"));
      Response otherArgs = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/nodes/n1/tools/get_system_info",
        "{}", null, "Idempotency-Key", key);
      assertEquals(409, otherArgs.status(), "a key names one call: " + otherArgs.body().encode());
      Response otherCaller = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/nodes/n1/tools/get_agent_health", "{}",
        fleet.mintToken("olga", "operator"), "Idempotency-Key", key);
      assertEquals(200, otherCaller.status(), otherCaller.body().encode());
      assertTrue(!first.body().getString("callId").equals(otherCaller.body().getString("callId")), "keys are per caller");
      assertEquals(400, fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/nodes/n1/tools/get_agent_health", "{}", null,
        "Idempotency-Key", "has spaces in it").status());
      assertEquals(1, node.tail(10_000).split("call received \\[call: " + first.body().getString("callId"), -1).length - 1);

      Response parked = fleet.post("/api/v1/nodes/n1/tools/run_command", "{\"command\": \"echo approved-on-b\"}");
      assertEquals(202, parked.status(), parked.body().encode());
      String approvalId = parked.body().getString("approvalId");
      String callId = parked.body().getString("callId");
      Response parkedAgain = fleet.sendTo(hubB.httpPort(), "POST", "/api/v1/nodes/n1/tools/run_command",
        "{\"command\": \"echo approved-on-b\"}", null, "Idempotency-Key", key + "-3");
      Response parkedRetry = fleet.sendTo(fleet.httpPort, "POST", "/api/v1/nodes/n1/tools/run_command",
        "{\"command\": \"echo approved-on-b\"}", null, "Idempotency-Key", key + "-3");
      assertEquals(202, parkedRetry.status(), parkedRetry.body().encode());
      assertEquals(parkedAgain.body().getString("approvalId"), parkedRetry.body().getString("approvalId"),
        "a retried tier-3 call waits on the same approval");

      // the same approval decided on both hubs at the same moment: exactly one decision wins, the call runs once
      String raced = parkedAgain.body().getString("approvalId");
      String racedCall = parkedAgain.body().getString("callId");
      CompletableFuture<Response> onA = CompletableFuture.supplyAsync(() -> fleet.sendTo(fleet.httpPort, "POST",
        "/api/v1/approvals/" + raced + "/approve", "{}", fleet.approverToken()));
      CompletableFuture<Response> onB = CompletableFuture.supplyAsync(() -> fleet.sendTo(hubB.httpPort(), "POST",
        "/api/v1/approvals/" + raced + "/deny", "{}", fleet.approverToken()));
      List<Integer> decided = List.of(onA.join().status(), onB.join().status());
      assertTrue(decided.contains(200) && decided.contains(409), "one decision wins, the other is 409: " + decided);
      Response racedOutcome = fleet.sendTo(hubB.httpPort(), "GET", "/api/v1/calls/" + racedCall + "?wait=30", null, null);
      assertEquals(decided.get(0) == 200 ? 200 : 403, racedOutcome.status(), racedOutcome.body().encode());
      int racedRuns = node.tail(10_000).split("privileged call started \\[call: " + racedCall, -1).length - 1;
      assertEquals(decided.get(0) == 200 ? 1 : 0, racedRuns, "ran as decided, at most once");

      // a call hub A is carrying out when it dies: its answer is lost with A, the node's journal keeps the outcome
      String orphan = fleet.startApprovedCall(node, "n1", "run_script",
        "{\"script\": \"sleep 3; echo outlived-hub-a\", \"timeout_seconds\": 30}");

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

      // B takes the call over when A leaves and waits for its node: a frontend waiting on B hears the outcome
      Response orphaned = fleet.sendTo(hubB.httpPort(), "GET", "/api/v1/calls/" + orphan + "?wait=30", null, null);
      assertEquals(200, orphaned.status(), "B asks the node about A's unfinished call: " + orphaned.body().encode());
      hubB.process().awaitLine("call taken over from a hub that left \\[call: " + Pattern.quote(orphan), Duration.ofSeconds(5));
      assertEquals("outlived-hub-a\n", orphaned.body().getJsonObject("data").getString("stdout"));
      assertTrue(orphaned.body().getString("resolution").startsWith("finished on the node"), orphaned.body().encode());

      Response recordOfA = fleet.sendTo(hubB.httpPort(), "GET", "/api/v1/calls/" + callOnA, null, null);
      assertEquals(200, recordOfA.status(), "a call record made on A outlives A: " + recordOfA.body().encode());
      assertNotNull(recordOfA.body().getJsonObject("data"));

      FaultReport.record("Idempotency-Key retried through another hub",
        "the first call's result, no second run; the key used for another call: 409",
        "same call id and data from hub B as from hub A; node received it once; other call with the key 409; other caller: own call");
      FaultReport.record("3. Two hubs: tier-3 call parked on hub A, A SIGKILLed, approved on hub B",
        "the call runs exactly once; the frontend on B gets the result; A's records (and A's unfinished call) answered by B",
        "approve on A and deny on B at once: " + decided + "; B listed A's pending approval, approved it (a second"
          + " approval: 409), result on B " + ms
          + " ms after the kill; the node ran it once; a call record made on A answered by B; a call A was running when"
          + " killed: B asked its node and answered with the result");
    }
  }
}
