package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real processes killed for real: the caller learns fast, and the fleet heals without restarts. */
@Timeout(240)
@Tag("cluster")
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
      String offline = hub.awaitLine(TestFleet.offlineLine("n1"), mark, Duration.ofMillis(3 * fleet.heartbeatMs + 500)).text();
      long offlineMs = (System.nanoTime() - t0) / 1_000_000;

      int again = hub.mark();
      fleet.startNode("n1", "sudo");
      hub.awaitLine(TestFleet.onlineLine("n1"), again, TestFleet.START);
      Response ok = fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}");
      assertEquals(200, ok.status(), ok.body().encode());
      FaultReport.record("SIGKILL an idle node, then call it", "a call fails with 503/504 in < 2 s; offline within 3 intervals; a restart comes back",
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

      int lost = node.mark();
      hub.kill();
      // with no hub, each try to join again is one line with its reason: no stack trace, no Vert.x or Hazelcast noise
      // (Hazelcast's own lines on why the hub left come before the node's "last hub left")
      FleetProcess.Line left = node.awaitLine("the last hub left the cluster", lost, Duration.ofSeconds(30));
      FleetProcess.Line firstTry = node.awaitLine("cannot join a cluster with a hub yet", left.next(), Duration.ofSeconds(30));
      FleetProcess hub2 = fleet.startHub("hub2", Map.of());
      long ready = System.nanoTime();
      hub2.awaitLine(TestFleet.onlineLine("n1"), Duration.ofSeconds(10));
      FleetProcess.Line back = node.awaitLine("node agent started", firstTry.next(), Duration.ofSeconds(10));
      List<String> meanwhile = node.tail(100_000).lines().skip(left.index()).limit(back.index() - left.index()).toList();
      assertTrue(firstTry.text().contains("reason: no hub in the cluster"), firstTry.text());
      for (String line : meanwhile) {
        // every line is a log line of its own (a stack trace's lines are not), and what warns is the node's own one-liner
        assertTrue(line.matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (INFO |WARN |ERROR|DEBUG).*"),
          "not one line per event while the node had no hub:\n" + String.join("\n", meanwhile));
        assertTrue(line.contains(" INFO ") || line.contains("] NodeSupervisor - ") || line.contains("] HelloLoop - "),
          "noise while the node had no hub: " + line + "\nall lines:\n" + String.join("\n", meanwhile));
      }
      Response r = fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}");
      long tookMs = (System.nanoTime() - ready) / 1_000_000;
      assertEquals(200, r.status(), r.body().encode());
      assertTrue(tookMs <= 10_000, "node reachable only after " + tookMs + " ms");
      assertTrue(node.isAlive(), "the node was not restarted");
      assertEquals(nodePid, node.pid());
      FaultReport.record("4. Only hub killed, new hub started", "every node reachable within 10 s, no node restart",
        "node answered 200 " + tookMs + " ms after the new hub was ready; same node pid");
    }
  }

  @Test
  void twinOfAHangingNodeIsRefusedUntilTheOldOneIsDeclaredGoneThenAccepted() {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hub = fleet.startHub();
      FleetProcess first = fleet.startNode("n1", "sudo");
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      FleetProcess twin = fleet.startNode("n1", "sudo");
      String refused = twin.awaitLine("hello not accepted.*already connected", TestFleet.START).text();
      assertTrue(refused.contains("n1"), refused);

      int mark = hub.mark();
      int twinMark = twin.mark();
      first.pause(); // the old process hangs: still a member, silent
      long t0 = System.nanoTime();
      hub.awaitLine(TestFleet.offlineLine("n1"), mark, Duration.ofMillis(3 * fleet.heartbeatMs + 1500));
      long goneMs = (System.nanoTime() - t0) / 1_000_000;
      twin.awaitLine("registered with hub \\[node: n1", twinMark, TestFleet.START);
      long acceptedMs = (System.nanoTime() - t0) / 1_000_000;
      hub.awaitLine(TestFleet.onlineLine("n1"), mark, TestFleet.START);
      JsonObject registered = fleet.get("/api/v1/nodes/n1").body();
      assertEquals(2, registered.getInteger("epoch"), "one new registration: " + registered.encode());

      // the old process comes back: calls are signed for the registered process, so it refuses them and the
      // hub delivers them to the new one
      first.resume();
      for (int i = 0; i < 6; i++) {
        Response ok = fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}");
        assertEquals(200, ok.status(), ok.body().encode());
        String callId = ok.body().getString("callId");
        assertTrue(twin.tail(20_000).contains("call received [call: " + callId), "answered by the new process");
        assertTrue(!first.tail(20_000).contains("call received [call: " + callId)
          || first.tail(20_000).contains("superseded: call " + callId), "the old process ran " + callId);
      }
      long refusedByOld = first.tail(50_000).lines().filter(l -> l.contains("superseded: call")).count();
      FaultReport.record("5. Same node id started while the old process hangs",
        "refused (409) until the old one is declared gone, then accepted",
        "refused: " + refused.replaceAll(".*reason: ", "").substring(0, 50) + "…; old declared offline " + goneMs
          + " ms after it hung; new process accepted " + acceptedMs + " ms after it hung; one new registration (epoch 2);"
          + " old process resumed: 6 calls all answered by the new one (" + refusedByOld + " refused by the old one as superseded, re-delivered)");
    }
  }
}
