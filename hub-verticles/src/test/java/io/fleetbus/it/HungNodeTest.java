package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A node that hangs (SIGSTOP) for 30 s: offline in 3 intervals, calls fail at their timeout, back after SIGCONT. */
@Timeout(180)
@Tag("cluster")
class HungNodeTest {

  @Test
  void hungNodeGoesOfflineAndComesBackWithoutDuplicates() {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hub = fleet.startHub();
      FleetProcess node = fleet.startNode("n1", "sudo");
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);

      int mark = hub.mark();
      node.pause();
      long t0 = System.nanoTime();
      hub.awaitLine(TestFleet.offlineLine("n1"), mark, Duration.ofMillis(3 * fleet.heartbeatMs + 1000));
      long offlineMs = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(offlineMs <= 3 * fleet.heartbeatMs + 1000);
      Response r = fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}");
      assertEquals(503, r.status(), r.body().encode());

      // stay hung past Hazelcast's own failure detection (10 s), as in the fault suite
      long hungUntil = t0 + Duration.ofSeconds(30).toNanos();
      int back = hub.mark();
      awaitTime(hungUntil);
      node.resume();
      long resumed = System.nanoTime();
      hub.awaitLine(TestFleet.onlineLine("n1"), back, Duration.ofSeconds(45));
      long backMs = (System.nanoTime() - resumed) / 1_000_000;
      Response ok = fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}");
      assertEquals(200, ok.status(), ok.body().encode());
      assertEquals(1, fleet.get("/api/v1/nodes").body().getJsonArray("nodes").size(), "one registration, not two");
      assertTrue(node.isAlive());
      FaultReport.record("2. SIGSTOP a node for 30 s", "offline within 3 intervals, calls fail fast; after SIGCONT online again, one registration",
        "offline after " + offlineMs + " ms (interval " + fleet.heartbeatMs + " ms), call got " + r.status()
          + "; online " + backMs + " ms after SIGCONT; 1 registration");
    }
  }

  /** The scenario itself is "hung for 30 s": waiting out that span is the test, not a readiness guess. */
  private static void awaitTime(long nanoDeadline) {
    long left;
    while ((left = nanoDeadline - System.nanoTime()) > 0) {
      java.util.concurrent.locks.LockSupport.parkNanos(left);
    }
  }
}
