package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What scripts/install-node.sh writes is enough for a node to join: the conf and env file it renders (into a
 * temp root) start a real node JVM that the hub reports online with the tier and labels given to the installer.
 */
@Timeout(120)
@Tag("cluster")
class InstalledNodeJoinsTest {

  @Test
  void nodeStartedFromTheInstalledConfJoinsTheHub() throws Exception {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hub = fleet.startHub();
      Path root = fleet.installNode("installed-1", "--hub", "127.0.0.1:" + fleet.hubClusterPort, "--address",
        "127.0.0.1", "--tier", "unprivileged", "--labels", "site=lab", "--cluster-name", fleet.clusterName);
      fleet.startInstalled(root, "installed-1", Map.of("FLEETBUS_CLUSTER_PORT", Integer.toString(TestFleet.freePort())));
      hub.awaitLine(TestFleet.onlineLine("installed-1"), TestFleet.START);

      Response node = fleet.get("/api/v1/nodes/installed-1");
      assertEquals(200, node.status(), node.body().encode());
      assertEquals("unprivileged", node.body().getString("capabilityTier"));
      assertEquals(new JsonObject().put("site", "lab"), node.body().getJsonObject("labels"));
      assertEquals("cluster", node.body().getString("transport"));
    }
  }
}
