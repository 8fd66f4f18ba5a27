package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Calls by labels: least-loaded choice, fan-out with errors, max_errors, and why nothing matched. */
@Timeout(180)
@Tag("cluster")
class TargetingAndFanOutTest {
  static TestFleet fleet;
  static FleetProcess hub;
  static SimulatedNodes sim;

  @BeforeAll
  static void start() throws Exception {
    fleet = new TestFleet(1000);
    hub = fleet.startHub();
    sim = new SimulatedNodes(fleet);
    JsonObject lab = new JsonObject().put("site", "lab");
    sim.add("lab-busy", fleet.enrollmentToken("lab-busy"), lab, 90, 0);
    sim.add("lab-idle", fleet.enrollmentToken("lab-idle"), lab, 5, 0);
    JsonObject batch = new JsonObject().put("role", "batch");
    sim.add("b1-fails", fleet.enrollmentToken("b1-fails"), batch, 10, 500);
    sim.add("b2-ok", fleet.enrollmentToken("b2-ok"), batch, 10, 0);
    sim.add("b3-ok", fleet.enrollmentToken("b3-ok"), batch, 10, 0);
    JsonObject strict = new JsonObject().put("role", "strict");
    sim.add("s1-fails", fleet.enrollmentToken("s1-fails"), strict, 10, 500);
    sim.add("s2-fails", fleet.enrollmentToken("s2-fails"), strict, 10, 500);
    sim.add("s3-ok", fleet.enrollmentToken("s3-ok"), strict, 10, 0);
    for (String n : new String[] {"lab-busy", "lab-idle", "b1-fails", "b2-ok", "b3-ok", "s1-fails", "s2-fails", "s3-ok"}) {
      hub.awaitLine(TestFleet.onlineLine(n), TestFleet.START);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    sim.close();
    fleet.close();
  }

  /** The hub applies heartbeats asynchronously: read the node until it reports what the test published. */
  private static void awaitHubSees(String nodeId, Predicate<JsonObject> seen) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    JsonObject node;
    do {
      node = fleet.get("/api/v1/nodes/" + nodeId).body();
      if (seen.test(node)) {
        return;
      }
    } while (System.nanoTime() < deadline);
    throw new AssertionError("hub never showed the expected state of " + nodeId + ": " + node.encode());
  }

  private static Response byLabels(JsonObject body) {
    return fleet.post("/api/v1/calls", body.put("tool", "get_agent_health").put("args", new JsonObject()).encode());
  }

  @Test
  void leastLoadedNodeIsPickedAndTheChoiceFollowsTheLoad() {
    awaitHubSees("lab-idle", n -> n.getJsonObject("metrics") != null && n.getJsonObject("metrics").getDouble("cpuPercent") == 5.0);
    awaitHubSees("lab-busy", n -> n.getJsonObject("metrics") != null && n.getJsonObject("metrics").getDouble("cpuPercent") == 90.0);
    for (int i = 0; i < 3; i++) {
      Response r = byLabels(new JsonObject().put("labels", new JsonObject().put("site", "lab")));
      assertEquals(200, r.status(), r.body().encode());
      assertEquals("lab-idle", r.body().getString("nodeId"));
    }
    sim.heartbeat("lab-idle", 95);
    sim.heartbeat("lab-busy", 3);
    awaitHubSees("lab-busy", n -> n.getJsonObject("metrics").getDouble("cpuPercent") == 3.0);
    awaitHubSees("lab-idle", n -> n.getJsonObject("metrics").getDouble("cpuPercent") == 95.0);
    assertEquals("lab-busy", byLabels(new JsonObject().put("labels", new JsonObject().put("site", "lab")))
      .body().getString("nodeId"));
  }

  @Test
  void fanOutGivesOneEntryPerNode() {
    Response r = byLabels(new JsonObject().put("labels", new JsonObject().put("role", "batch")).put("mode", "all"));
    assertEquals(200, r.status(), r.body().encode());
    JsonObject summary = r.body().getJsonObject("data").getJsonObject("summary");
    assertEquals(3, summary.getInteger("nodes"));
    assertEquals(2, summary.getInteger("ok"));
    assertEquals(1, summary.getInteger("error"));
    Map<String, JsonObject> byNode = new HashMap<>();
    r.body().getJsonObject("data").getJsonArray("results").forEach(e -> byNode.put(((JsonObject) e).getString("nodeId"), (JsonObject) e));
    assertEquals("error", byNode.get("b1-fails").getString("status"));
    assertEquals(500, byNode.get("b1-fails").getJsonObject("error").getInteger("code"));
    assertEquals("b2-ok", byNode.get("b2-ok").getJsonObject("data").getString("answeredBy"));
  }

  @Test
  void maxErrorsStopsSending() {
    int before = sim.callsReceived("s3-ok");
    Response r = byLabels(new JsonObject().put("labels", new JsonObject().put("role", "strict")).put("mode", "all")
      .put("maxConcurrency", 1).put("maxErrors", 1));
    assertEquals(200, r.status(), r.body().encode());
    JsonObject summary = r.body().getJsonObject("data").getJsonObject("summary");
    assertEquals(1, summary.getInteger("error"));
    assertEquals(2, summary.getInteger("not_run"));
    assertTrue(summary.getBoolean("stoppedByMaxErrors"));
    assertEquals(before, sim.callsReceived("s3-ok"), "a node after the error limit was still called");
  }

  @Test
  void noEligibleNodeSaysWhyEachWasExcluded() {
    Response r = byLabels(new JsonObject().put("labels", new JsonObject().put("site", "mars")));
    assertEquals(503, r.status());
    String message = r.body().getJsonObject("error").getString("message");
    assertTrue(message.contains("lab-idle") && message.contains("site=lab, wanted mars"), message);
    Response bad = byLabels(new JsonObject().put("mode", "some"));
    assertEquals(400, bad.status());
  }

  @Test
  void tier3FanOutNeedsOneApprovalNamingEveryNode() {
    Response pending = fleet.post("/api/v1/calls", new JsonObject().put("tool", "run_command")
      .put("args", new JsonObject().put("command", "echo hi")).put("labels", new JsonObject().put("role", "batch"))
      .put("mode", "all").encode());
    assertEquals(202, pending.status(), pending.body().encode());
    JsonArray approvals = fleet.get("/api/v1/approvals?status=pending").body().getJsonArray("approvals");
    JsonObject approval = approvals.stream().map(JsonObject.class::cast)
      .filter(a -> a.getString("approvalId").equals(pending.body().getString("approvalId"))).findFirst().orElseThrow();
    assertEquals(new JsonArray().add("b1-fails").add("b2-ok").add("b3-ok"),
      approval.getJsonObject("selector").getJsonArray("nodes"));
    assertTrue(approval.getString("summary").contains("b2-ok"));
    assertEquals(200, fleet.approve(approval.getString("approvalId"), "fan-out test").status());
    Response done = fleet.get("/api/v1/calls/" + pending.body().getString("callId") + "?wait=20");
    assertEquals(200, done.status(), done.body().encode());
    assertEquals(2, done.body().getJsonObject("data").getJsonObject("summary").getInteger("ok"));
  }
}
