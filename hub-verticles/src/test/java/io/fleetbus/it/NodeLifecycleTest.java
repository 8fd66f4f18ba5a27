package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Graceful disconnect, config_update and the lifecycle the registry keeps, with real JVMs. */
@Timeout(180)
@Tag("cluster")
class NodeLifecycleTest {

  @Test
  void sigtermMarksTheNodeOfflineAtOnceAsDisconnected() {
    try (TestFleet fleet = new TestFleet(5000)) {
      FleetProcess hub = fleet.startHub();
      FleetProcess node = fleet.startNode("n1", "sudo");
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      int mark = hub.mark();
      long t0 = System.nanoTime();
      node.stop();
      String line = hub.awaitLine(TestFleet.offlineLine("n1"), mark, Duration.ofSeconds(5)).text();
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(line.contains("reason: disconnected"), line);
      assertTrue(ms < 1000 + 500, "offline after " + ms + " ms (process exit included)");

      JsonArray lifecycle = fleet.get("/api/v1/nodes/n1").body().getJsonArray("lifecycle");
      List<String> steps = lifecycle.stream().map(e -> ((JsonObject) e).getString("event")).toList();
      assertEquals(List.of("registered", "online", "offline"), steps);
      assertEquals("disconnected", lifecycle.getJsonObject(2).getString("reason"));
    }
  }

  @Test
  void configUpdateChangesTheRhythmTheHubSees() {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hub = fleet.startHub();
      fleet.startNode("n1", "sudo", new JsonObject().put("labels", new JsonObject().put("os", "linux").put("rack", "r1")));
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);

      Response refused = fleet.post("/api/v1/nodes/n1/config", "{\"capabilityTier\": \"root\"}");
      assertEquals(403, refused.status(), refused.body().encode());
      assertEquals(400, fleet.post("/api/v1/nodes/n1/config", "{\"shell\": true}").status());
      assertEquals(400, fleet.post("/api/v1/nodes/n1/config", "{\"heartbeatIntervalMs\": 5}").status());
      assertEquals("sudo", fleet.get("/api/v1/nodes/n1").body().getString("capabilityTier"));

      // labels merge into the node's own; null removes one
      Response ok = fleet.post("/api/v1/nodes/n1/config",
        "{\"heartbeatIntervalMs\": 250, \"labels\": {\"site\": \"lab\", \"rack\": null}}");
      assertEquals(200, ok.status(), ok.body().encode());
      assertEquals(250, ok.body().getJsonObject("effective").getInteger("heartbeatIntervalMs"));
      JsonObject node = awaitNode(fleet, n -> n.getLong("observedHeartbeatMs", 10_000L) < 500);
      assertEquals(250, node.getInteger("heartbeatIntervalMs"));
      assertEquals(new JsonObject().put("os", "linux").put("site", "lab"), node.getJsonObject("labels"), node.encode());
      assertTrue(node.getJsonArray("lifecycle").stream().anyMatch(e -> "config_updated".equals(((JsonObject) e).getString("event"))));
      assertTrue(hub.tail(500).lines().noneMatch(l -> l.contains("node offline [node: n1")),
        "the change of rhythm must not look like missed heartbeats");
    }
  }

  /** Reads the node until the hub shows the expected state (heartbeats arrive on their own schedule). */
  private static JsonObject awaitNode(TestFleet fleet, java.util.function.Predicate<JsonObject> seen) {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    JsonObject node;
    do {
      node = fleet.get("/api/v1/nodes/n1").body();
      if (seen.test(node)) {
        return node;
      }
    } while (System.nanoTime() < deadline);
    throw new AssertionError("hub never showed the expected state: " + node.encode());
  }
}
