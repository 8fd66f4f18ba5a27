package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What scripts/install-node.sh writes is enough for a node to join: the conf and env file it renders (into a
 * temp root) start a real node JVM that the hub reports online with the tier and labels given to the installer.
 */
@Timeout(120)
class InstalledNodeJoinsTest {

  @Test
  void nodeStartedFromTheInstalledConfJoinsTheHub() throws Exception {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hub = fleet.startHub();
      Path root = Files.createDirectories(fleet.dir.resolve("install-root"));
      Path jar = Files.writeString(fleet.dir.resolve("node.jar"), "the test runs the node from its classpath");
      Path script = Path.of("..", "scripts", "install-node.sh").toAbsolutePath().normalize();
      ProcessBuilder install = new ProcessBuilder("bash", script.toString(), "--root", root.toString(), "--jar",
        jar.toString(), "--hub", "127.0.0.1:" + fleet.hubClusterPort, "--address", "127.0.0.1", "--node-id", "installed-1",
        "--tier", "unprivileged", "--labels", "site=lab", "--cluster-name", fleet.clusterName).redirectErrorStream(true);
      // a real one-time token from the hub: the node enrolls with what the installer wrote
      install.environment().put("FLEETBUS_ENROLLMENT_TOKEN", fleet.enrollmentToken("installed-1"));
      Process p = install.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(30, TimeUnit.SECONDS);
      assertEquals(0, p.exitValue(), out);

      // what systemd would do: the EnvironmentFile, then the node with the installed conf (data kept in the temp root)
      Map<String, String> env = new HashMap<>();
      for (String line : Files.readAllLines(root.resolve("etc/fleetbus/node.env"))) {
        env.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
      }
      env.put("FLEETBUS_NODE_DATA", root.resolve("var/lib/fleetbus/node").toString());
      env.put("FLEETBUS_CLUSTER_PORT", Integer.toString(TestFleet.freePort()));
      // started outside the fleet's own list: closed here, or it would outlive the test run
      try (FleetProcess installed = FleetProcess.start("installed-1", "io.fleetbus.node.NodeMain", env,
        fleet.dir.resolve("installed-1.log"), "-conf", root.resolve("etc/fleetbus/node.json").toString())) {
        hub.awaitLine(TestFleet.onlineLine("installed-1"), TestFleet.START);

        Response node = fleet.get("/api/v1/nodes/installed-1");
        assertEquals(200, node.status(), node.body().encode());
        assertEquals("unprivileged", node.body().getString("capabilityTier"));
        assertEquals(new JsonObject().put("site", "lab"), node.body().getJsonObject("labels"));
      }
    }
  }
}
