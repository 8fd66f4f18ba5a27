package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** conf/hub.json edited while the hub runs: good edits apply at once, bad ones are rejected and change nothing. */
@Timeout(120)
@Tag("cluster")
class HubConfigReloadTest {

  @Test
  void tierOverridesAndExpectedNodesReloadAndBadEditsAreRejected() throws Exception {
    try (TestFleet fleet = new TestFleet(1000)) {
      fleet.hubConf.put("configScanMs", 200)
        .put("expectedNodes", new JsonArray().add(new JsonObject().put("nodeId", "gpu-box").put("labels",
          new JsonObject().put("gpu", "2"))));
      FleetProcess hub = fleet.startHub();
      fleet.startNode("n1", "sudo");
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      Path conf = fleet.dir.resolve("hub-conf.json");

      JsonObject never = fleet.get("/api/v1/nodes/gpu-box").body();
      assertEquals("never connected", never.getString("state"), never.encode());
      assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/get_disk_usage", "{}").status());

      int mark = hub.mark();
      Files.writeString(conf, fleet.hubConf.copy().put("tierOverrides", new JsonObject().put("get_disk_usage", 3))
        .put("expectedNodes", new JsonArray()).encodePrettily());
      hub.awaitLine("hub config reloaded", mark, Duration.ofSeconds(15));
      Response parked = fleet.post("/api/v1/nodes/n1/tools/get_disk_usage", "{}");
      assertEquals(202, parked.status(), "get_disk_usage now needs a person: " + parked.body().encode());
      assertEquals(404, fleet.get("/api/v1/nodes/gpu-box").status(), "no longer expected");

      int bad = hub.mark();
      Files.writeString(conf, "{\"tierOverrides\": {\"get_disk_usage\": ");
      String rejected = hub.awaitLine("hub config rejected", bad, Duration.ofSeconds(15)).text();
      assertTrue(rejected.contains("reason"), rejected);
      assertEquals(202, fleet.post("/api/v1/nodes/n1/tools/get_disk_usage", "{}").status(), "old config kept");

      int unknown = hub.mark();
      Files.writeString(conf, fleet.hubConf.copy().put("tierOverrides", new JsonObject().put("no_such_tool", 1)).encode());
      String why = hub.awaitLine("hub config rejected", unknown, Duration.ofSeconds(15)).text();
      assertTrue(why.contains("no_such_tool"), why);
      assertEquals(202, fleet.post("/api/v1/nodes/n1/tools/get_disk_usage", "{}").status(), "old config kept");
    }
  }
}
