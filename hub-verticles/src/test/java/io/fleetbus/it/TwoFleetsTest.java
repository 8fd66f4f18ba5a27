package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15, part 6: two fleets on one machine (or LAN) whose hubs can reach each other's cluster ports, started
 * with the default cluster name (each hub takes {@code fleetbus-<its fleetId>}), never merge: each serves all of its
 * calls. A hub forced onto another fleet's cluster name stops with an error naming both fleets and the fix, and the
 * other fleet goes on as before. Before this fix (one default name "fleetbus") such hubs merged: calls failed 401,
 * and a restarted hub refused to start ("sealed box does not open").
 */
@Timeout(300)
@Tag("cluster")
class TwoFleetsTest {
  static TestFleet a;
  static TestFleet b;
  static FleetProcess hubA;
  static FleetProcess hubB;

  @BeforeAll
  static void startTwoFleets() {
    a = new TestFleet(1000);
    b = new TestFleet(1000);
    // like hubs on the default ports of one LAN: each hub's member list names both hubs
    String members = "127.0.0.1:" + a.hubClusterPort + ",127.0.0.1:" + b.hubClusterPort;
    hubA = a.startHub("hub", defaults(members));
    hubB = b.startHub("hub", defaults(members));
    a.startNode("na", "sudo", new JsonObject(), Map.of("FLEETBUS_CLUSTER_NAME", clusterName(a), "FLEETBUS_CLUSTER_MEMBERS",
      "127.0.0.1:" + a.hubClusterPort));
    b.startNode("nb", "sudo", new JsonObject(), Map.of("FLEETBUS_CLUSTER_NAME", clusterName(b), "FLEETBUS_CLUSTER_MEMBERS",
      "127.0.0.1:" + b.hubClusterPort));
    hubA.awaitLine(TestFleet.onlineLine("na"), TestFleet.START);
    hubB.awaitLine(TestFleet.onlineLine("nb"), TestFleet.START);
  }

  /** No cluster name configured (blank = unset): the hub uses its fleet's own. */
  private static Map<String, String> defaults(String members) {
    Map<String, String> env = new HashMap<>();
    env.put("FLEETBUS_CLUSTER_NAME", "");
    env.put("FLEETBUS_CLUSTER_MEMBERS", members);
    return env;
  }

  @AfterAll
  static void stop() throws Exception {
    for (TestFleet f : new TestFleet[] {a, b}) {
      if (f != null) {
        f.close();
      }
    }
  }

  /** The cluster check of the hub's GET /ready: cluster name, fleet id, members. */
  private static JsonObject cluster(TestFleet fleet) {
    TestFleet.Response ready = fleet.get("/ready");
    assertEquals(200, ready.status(), ready.body().encode());
    return ready.body().getJsonArray("checks").stream().map(JsonObject.class::cast)
      .filter(c -> "cluster".equals(c.getString("id"))).findFirst().orElseThrow().getJsonObject("data");
  }

  private static String clusterName(TestFleet fleet) {
    return cluster(fleet).getString("cluster");
  }

  @Test
  void twoFleetsWithDefaultSettingsNeverMergeAndServeAllTheirCalls() throws Exception {
    JsonObject ca = cluster(a);
    JsonObject cb = cluster(b);
    assertNotEquals(ca.getString("fleetId"), cb.getString("fleetId"));
    assertEquals("fleetbus-" + ca.getString("fleetId"), ca.getString("cluster"));
    assertEquals("fleetbus-" + cb.getString("fleetId"), cb.getString("cluster"));
    // each fleet's cluster is its hub and its node: the other fleet's members are not in it
    assertEquals(2, ca.getInteger("members"), ca.encode());
    int calls = 20;
    int served = 0;
    for (int i = 0; i < calls; i++) {
      served += a.post("/api/v1/nodes/na/tools/get_agent_health", "{}").status() == 200 ? 1 : 0;
      served += b.post("/api/v1/nodes/nb/tools/get_agent_health", "{}").status() == 200 ? 1 : 0;
    }
    assertEquals(2 * calls, served, "every call of both fleets is served");
    assertEquals(404, a.post("/api/v1/nodes/nb/tools/get_agent_health", "{}").status(), "fleet A knows nothing of B's node");
    FaultReport.record("15.6 Two fleets on one machine, hubs reaching each other's cluster ports, default cluster name",
      "never merge; each serves 100% of its calls", served + " of " + 2 * calls + " calls served; cluster names "
        + ca.getString("cluster") + " and " + cb.getString("cluster"));
  }

  @Test
  void aHubForcedOntoAnotherFleetsClusterNameStopsAndTheOtherFleetGoesOn() throws Exception {
    TestFleet c = new TestFleet(1000);
    try {
      Map<String, String> env = new HashMap<>();
      env.put("FLEETBUS_CLUSTER_NAME", clusterName(a));
      env.put("FLEETBUS_CLUSTER_MEMBERS", "127.0.0.1:" + a.hubClusterPort);
      env.put("FLEETBUS_CLUSTER_PORT", Integer.toString(c.hubClusterPort));
      env.put("FLEETBUS_CLUSTER_HOST", "127.0.0.1");
      env.put("FLEETBUS_CLUSTER_CONFIG", java.nio.file.Path.of("..", "cluster.xml").toAbsolutePath().normalize().toString());
      env.put("FLEETBUS_HTTP_PORT", Integer.toString(c.httpPort));
      env.put("FLEETBUS_HUB_DATA", c.dir.resolve("hub").toString());
      Files.writeString(c.dir.resolve("hub-conf.json"), "{}");
      int mark = hubA.mark();
      FleetProcess intruder = FleetProcess.start("hub-c", "io.fleetbus.hub.boot.HubMain", env, c.dir.resolve("hub-c.log"),
        "-conf", c.dir.resolve("hub-conf.json").toString());
      String refusal = intruder.awaitLine("hub failed to start: .*another fleet's hub", TestFleet.START).text();
      intruder.stop();
      assertFalse(intruder.isAlive(), "the hub of the other fleet stopped");
      String fleetA = cluster(a).getString("fleetId");
      String fleetC = Files.readString(c.dir.resolve("hub").resolve("keys").resolve("fleet-id")).strip();
      assertTrue(refusal.contains("this hub is fleet " + fleetC) && refusal.contains("is a hub of fleet " + fleetA)
        && refusal.contains("must not share a cluster name"), refusal);
      hubA.awaitLine("a hub of another fleet joined this cluster .*its fleet: " + fleetC, mark, Duration.ofSeconds(10));
      assertFalse(intruder.tail(400).contains("api: http://"), "it never served");
      for (int i = 0; i < 10; i++) {
        assertEquals(200, a.post("/api/v1/nodes/na/tools/get_agent_health", "{}").status(), "fleet A goes on");
      }
      assertTrue(a.get("/api/v1/nodes/na").body().getBoolean("online"));
      FaultReport.record("15.6 A hub of another fleet forced onto this fleet's cluster name",
        "it stops with an error naming both fleets and the fix; this fleet is unaffected",
        "stopped: " + refusal.substring(refusal.indexOf("another fleet's hub")).lines().findFirst().orElse("")
          .substring(0, 80) + "…; 10 of 10 calls of the fleet served after it");
    } finally {
      c.close();
    }
  }
}
