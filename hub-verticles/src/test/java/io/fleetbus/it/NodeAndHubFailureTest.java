package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real processes killed for real: the caller learns fast, and the fleet heals without restarts. */
@Timeout(240)
class NodeAndHubFailureTest {

  @Test
  void killedNodeFailsFastGoesOfflineAndComesBack() {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hub = fleet.startHub();
      FleetProcess node = fleet.startNode("n1", "sudo");
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status());

      int mark = hub.mark();
      node.kill();
      long t0 = System.nanoTime();
      Response failed = fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}");
      long tookMs = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(failed.status() == 503 || failed.status() == 504, failed.body().encode());
      assertTrue(tookMs < 2000, "a call to a killed node took " + tookMs + " ms to fail");
      // offline within 3 heartbeat intervals (plus the sweep's own period)
      String offline = hub.awaitLine(TestFleet.offlineLine("n1"), mark, Duration.ofMillis(3 * fleet.heartbeatMs + 500));
      long offlineMs = (System.nanoTime() - t0) / 1_000_000;

      int again = hub.mark();
      fleet.startNode("n1", "sudo");
      hub.awaitLine(TestFleet.onlineLine("n1"), again, TestFleet.START);
      Response ok = fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}");
      assertEquals(200, ok.status(), ok.body().encode());
      FaultReport.record("SIGKILL a node", "a call fails with 503/504 in < 2 s; offline within 3 intervals; a restart comes back",
        "call failed with " + failed.status() + " after " + tookMs + " ms; offline after " + offlineMs + " ms ("
          + offline.replaceAll(".*reason: ([a-z_]+).*", "$1") + "); restarted node answered 200");
    }
  }

  @Test
  void newHubReachesTheStillRunningNodeWithin10Seconds() {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hub = fleet.startHub();
      FleetProcess node = fleet.startNode("n1", "sudo");
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      long nodePid = node.pid();

      hub.kill();
      FleetProcess hub2 = fleet.startHub("hub2", Map.of());
      long ready = System.nanoTime();
      hub2.awaitLine(TestFleet.onlineLine("n1"), Duration.ofSeconds(10));
      Response r = fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}");
      long tookMs = (System.nanoTime() - ready) / 1_000_000;
      assertEquals(200, r.status(), r.body().encode());
      assertTrue(tookMs <= 10_000, "node reachable only after " + tookMs + " ms");
      assertTrue(node.isAlive(), "the node was not restarted");
      assertEquals(nodePid, node.pid());
      FaultReport.record("Only hub killed, new hub started", "every node reachable within 10 s, no node restart",
        "node answered 200 " + tookMs + " ms after the new hub was ready; same node pid");
    }
  }

  @Test
  void secondNodeWithALiveNodesIdIsRefusedWith409() {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hub = fleet.startHub();
      fleet.startNode("n1", "sudo");
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      FleetProcess twin = fleet.startNode("n1", "sudo");
      String refused = twin.awaitLine("hello not accepted.*already connected", TestFleet.START);
      assertTrue(refused.contains("n1"), refused);
      FaultReport.record("Second process with a live node's id", "refused with 409 while the first is online",
        "refused: " + refused.replaceAll(".*reason: ", "").substring(0, 60) + "…");
    }
  }
}
