package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hub never retries after a reply timeout: the caller gets 504 "outcome unknown", and a later
 * {@code GET /api/v1/calls/{id}} asks the node, whose journal tells what really happened.
 */
@Timeout(240)
@Tag("cluster")
class OutcomeAfterTimeoutTest {

  @Test
  void afterA504TheCallRecordTellsTheNodesTruth() {
    try (TestFleet fleet = new TestFleet(1000)) {
      fleet.hubConf(new JsonObject().put("callTimeoutMs", 2000));
      FleetProcess hub = fleet.startHub();
      FleetProcess node = fleet.startNode("n1", "sudo");
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);

      // timeout_seconds 1: the hub waits 1 s + the 5 s kill grace = 6 s for the answer
      String callId = fleet.startApprovedCall(node, "n1", "run_script",
        "{\"script\": \"sleep 0.3; echo finished-while-frozen\", \"timeout_seconds\": 1}");
      node.pause(); // the JVM freezes; its script runs on and exits

      Response timedOut = fleet.get("/api/v1/calls/" + callId + "?wait=20");
      assertEquals(504, timedOut.status(), timedOut.body().encode());
      assertTrue(timedOut.body().getJsonObject("error").getString("message").contains("outcome is unknown — query GET"),
        timedOut.body().encode());

      int mark = hub.mark();
      int nodeMark = node.mark();
      node.resume();
      hub.awaitLine(TestFleet.onlineLine("n1"), mark, TestFleet.START);
      node.awaitLine("call outcome journaled \\[call: " + Pattern.quote(callId), nodeMark, Duration.ofSeconds(20));
      Response truth = fleet.get("/api/v1/calls/" + callId);
      assertTrue(truth.body().getString("resolution", "").startsWith("finished on the node"), truth.body().encode());
      assertEquals(1, node.tail(10_000).split("privileged call started \\[call: " + Pattern.quote(callId), -1).length - 1);
      FaultReport.record("Node frozen mid-call past the reply timeout, then resumed",
        "504 \"outcome unknown\", no retry; GET /calls/{id} later tells the node's truth",
        "504 after the 6 s reply timeout; after SIGCONT GET /calls/{id} asked the node: " + truth.status() + " "
          + truth.body().getString("status") + " (resolution: finished on the node); ran once");
    }
  }
}
