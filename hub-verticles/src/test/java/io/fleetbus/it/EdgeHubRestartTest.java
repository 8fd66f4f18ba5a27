package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.PeerHub;
import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 35, items 1 and 2: edge links across hub restarts and deaths, on one fleet (two hubs, two edge nodes in a
 * network namespace that reaches only the hubs' edge ports). edge-1 lists hub B only; edge-2 lists A, then B.
 * First hub B restarts: edge-1, enrolled before it started, links to it again and stays online (its heartbeats are
 * proven by the restarted hub's keyring) and serves calls through either hub. Then (the EdgeTakeoverTest,
 * sharing this fleet) hub A — the hub carrying edge-2's call and holding its link — is SIGKILLed mid-call: hub B
 * takes the call over while edge-2 relinks, asks the node again once it is back, and the caller's retry with the same
 * Idempotency-Key through hub B gets the outcome the node journaled.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("cluster")
class EdgeHubRestartTest {
  private static final int EDGE_A = TestFleet.freePort();
  private static final int EDGE_B = TestFleet.freePort();
  private static TestFleet fleet;
  private static FleetProcess hubA;
  private static PeerHub hubB;
  private static FleetProcess edge1;
  private static FleetProcess edge2;
  private static Netns netns;
  private static String edgeHost = "127.0.0.1";

  @BeforeAll
  static void fleet() {
    fleet = new TestFleet(1000);
    netns = Netns.tryCreate();
    if (netns != null) {
      edgeHost = netns.hostAddress();
    }
    fleet.hubConf(new JsonObject().put("edge", new JsonObject().put("host", edgeHost)).put("callTimeoutMs", 15_000));
    hubA = fleet.startHub("hub", Map.of("FLEETBUS_EDGE_PORT", Integer.toString(EDGE_A)));
    hubB = startHubB();
    String pin = fleet.post("/api/v1/enrollments", new JsonObject().put("nodeId", "pin-probe").encode()).body()
      .getString("edgeCertSha256");
    edge1 = startEdge("edge-1", pin, edgeHost + ":" + EDGE_B);
    edge2 = startEdge("edge-2", pin, edgeHost + ":" + EDGE_A + "," + edgeHost + ":" + EDGE_B);
    hubA.awaitLine(TestFleet.onlineLine("edge-1"), TestFleet.START);
    hubA.awaitLine(TestFleet.onlineLine("edge-2"), TestFleet.START);
  }

  private static PeerHub startHubB() {
    return fleet.startPeerHub("hub-b", 1, Map.of("FLEETBUS_EDGE_PORT", Integer.toString(EDGE_B)));
  }

  private static FleetProcess startEdge(String nodeId, String pin, String hubs) {
    return fleet.startNode(nodeId, "sudo", new JsonObject().put("allowlist", new JsonArray().add("echo").add("sleep")),
      Map.of("FLEETBUS_TRANSPORT", "edge", "FLEETBUS_EDGE_HUBS", hubs, "FLEETBUS_EDGE_CERT_SHA256", pin),
      netns == null ? List.of() : netns.exec());
  }

  @AfterAll
  static void stop() {
    if (fleet != null) {
      fleet.close();
    }
    if (netns != null) {
      netns.close();
    }
  }

  @Test
  @Order(1)
  void aRestartedHubKeepsTheEdgeNodesEnrolledBeforeItStartedOnline() {
    hubB.process().stop();
    int markA = hubA.mark();
    int mark1 = edge1.mark();
    hubB = startHubB();
    hubB.process().awaitLine("edge node proved itself \\[node: edge-1", TestFleet.START);
    edge1.awaitLine("linked to hub " + edgeHost + ":" + EDGE_B, mark1, Duration.ofSeconds(10));
    long linkedAt = System.currentTimeMillis();
    // more than the 3 silent heartbeat intervals that take a node offline: its heartbeats must reach both monitors
    Duration window = Duration.ofMillis(5 * fleet.heartbeatMs);
    assertNoLine(hubB.process(), TestFleet.offlineLine("edge-1"), 0, window);
    assertNoLine(hubA, TestFleet.offlineLine("edge-1") + ".*missed_heartbeats", markA, Duration.ZERO);
    assertFalse(hubB.process().tail(10_000).contains("edge message refused [link: edge"),
      "the restarted hub refused a message of a node it admitted:\n" + hubB.process().tail(40));
    for (int port : new int[] {hubB.httpPort(), fleet.httpPort}) {
      JsonObject node = fleet.sendTo(port, "GET", "/api/v1/nodes/edge-1", null, null).body();
      assertTrue(node.getBoolean("online"), node.encode());
      Response call = fleet.sendTo(port, "POST", "/api/v1/nodes/edge-1/tools/get_agent_health", "{}", null);
      assertEquals(200, call.status(), "through the hub on port " + port + ": " + call.body().encode());
    }
    assertTrue(fleet.get("/api/v1/nodes/edge-2").body().getBoolean("online"), "edge-2 (linked to hub A) stayed");
    System.out.println("hub B restarted: edge-1 relinked and stayed online " + (System.currentTimeMillis() - linkedAt)
      + " ms (" + window.toMillis() + " ms without an offline; heartbeats every " + fleet.heartbeatMs + " ms)");
  }

  /** Fails when {@code regex} is printed (from line {@code from}) within {@code window}. */
  static void assertNoLine(FleetProcess process, String regex, int from, Duration window) {
    try {
      FleetProcess.Line line = process.awaitLine(regex, from, window.isZero() ? Duration.ofMillis(1) : window);
      throw new IllegalStateException(process.name() + " printed " + line.text());
    } catch (AssertionError expected) {
      // not printed: as it should be
    }
  }

  /** The takeover scenario (issue 35's EdgeTakeoverTest), on this class's fleet: it kills hub A, so it comes last. */
  @Test
  @Order(2)
  void aCallTakenOverWhileItsEdgeNodeRelinksAnswersTheSameKeyRetryWithTheJournaledOutcome() {
    String key = "takeover-" + System.nanoTime();
    String path = "/api/v1/nodes/edge-2/tools/run_command";
    String args = "{\"command\": \"sleep 5\", \"timeout_seconds\": 20}";
    assertTrue(hubA.tail(20_000).contains("edge node proved itself [node: edge-2"), "edge-2 is linked to hub A");
    Response parked = fleet.sendTo(fleet.httpPort, "POST", path, args, null, "Idempotency-Key", key);
    assertEquals(202, parked.status(), parked.body().encode());
    String callId = parked.body().getString("callId");
    int mark = edge2.mark();
    assertEquals(200, fleet.approve(parked.body().getString("approvalId"), "takeover test").status());
    edge2.awaitLine("privileged call started \\[call: " + Pattern.quote(callId), mark, Duration.ofSeconds(20));

    int linkMark = edge2.mark();
    long killedAt = System.nanoTime();
    long killedAtMs = System.currentTimeMillis();
    hubA.kill();
    // the caller lost its hub: it retries through the other one with the same key (while the node relinks)
    Response retry = fleet.sendTo(hubB.httpPort(), "POST", path, args, null, "Idempotency-Key", key);
    long answeredMs = (System.nanoTime() - killedAt) / 1_000_000;
    assertEquals(200, retry.status(), "after " + answeredMs + " ms: " + retry.body().encode());
    assertEquals(0, retry.body().getJsonObject("data").getInteger("exitCode"), retry.body().encode());
    edge2.awaitLine("call outcome journaled \\[call: " + Pattern.quote(callId), mark, Duration.ofSeconds(1));
    assertTrue(answeredMs < 20_000, "the retry was answered " + answeredMs + " ms after the kill");
    // the relink: from the kill to the node's hello accepted by hub B (its link taken up, pause within the spread)
    long relinkMs = hubB.process().awaitLine("edge node proved itself \\[node: edge-2", Duration.ofSeconds(1))
      .readAtMillis() - killedAtMs;
    String pause = edge2.awaitLine("lost: linking again in \\d+ ms", linkMark, Duration.ofSeconds(1)).text()
      .replaceAll(".*linking again in (\\d+) ms.*", "$1");
    Response record = fleet.sendTo(hubB.httpPort(), "GET", "/api/v1/calls/" + callId, null, null);
    assertEquals(200, record.status(), record.body().encode());
    assertTrue(record.body().getString("resolution", "").startsWith("finished on the node"), record.body().encode());
    assertEquals(1, edge2.tail(20_000).split("privileged call started \\[call: " + Pattern.quote(callId), -1).length
      - 1, "ran once");
    System.out.println("hub A SIGKILLed mid-call: edge-2 relinked to hub B " + relinkMs + " ms after the kill (its"
      + " random pause: " + pause + " ms of edge.relinkSpreadMs 1000); the same-key retry through hub B answered 200 "
      + answeredMs + " ms after the kill with the node's journaled outcome (" + record.body().getString("resolution")
      + ")");
    FaultReport.record("35. SIGKILL the hub carrying an edge node's call and holding its link",
      "hub B takes the call over, asks the node again once it relinks; a same-key retry gets the journaled outcome"
        + " within the call timeout", "relinked after " + relinkMs + " ms (pause " + pause + " ms); retry 200 after "
        + answeredMs + " ms (exitCode 0); ran once");
  }
}
