package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 31: a hub or node started with a security fault switch ({@code -Dfleetbus.fault.noAuthz=true}) and without
 * {@code -Dfleetbus.testRun=true} refuses to start, naming the switch — so nobody runs a fleet with authorization off
 * by a stray FLEETBUS_JAVA_OPTS. With the test flag the same hub starts, says so at ERROR, and shows the switch in
 * {@code /ready} and {@code /metrics}. One hub JVM that starts, two that stop at once.
 */
@Tag("cluster")
@Timeout(180)
class SecuritySwitchRefusedTest {
  private static final String NO_AUTHZ = "-D" + FaultSwitch.NO_AUTHZ.property() + "=true";
  static TestFleet fleet;

  @BeforeAll
  static void fleet() {
    fleet = new TestFleet(1000);
  }

  @AfterAll
  static void stop() throws Exception {
    fleet.close();
  }

  /** java with the test classpath, as FleetProcess starts it but with exactly {@code flags}: no test flag added. */
  private static FleetProcess startBare(String name, String mainClass, List<String> flags) {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(FleetProcess.JVM_FLAGS);
    cmd.addAll(flags);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass, "-conf",
      fleet.dir.resolve("conf.json").toString()));
    return fleet.closing(FleetProcess.start(name, cmd, Map.of("FLEETBUS_HUB_DATA", fleet.dir.resolve(name).toString(),
      "FLEETBUS_HTTP_PORT", Integer.toString(TestFleet.freePort())), fleet.dir, fleet.dir.resolve(name + ".log")));
  }

  @Test
  void aHubWithASecuritySwitchAndNoTestFlagRefusesToStartNamingIt() {
    FleetProcess hub = startBare("bare-hub", "io.fleetbus.hub.boot.HubMain", List.of(NO_AUTHZ));
    assertNotEquals(0, hub.awaitExit(TestFleet.START), "the hub stopped with a failure code");
    String said = hub.awaitLine("refusing to start the hub", Duration.ofSeconds(10)).text();
    assertTrue(said.contains("ERROR") && said.contains("-Dfleetbus.fault.noAuthz=true")
      && said.contains("-Dfleetbus.testRun=true"), "names the switch and the flag a test run sets: " + said);
  }

  @Test
  void aNodeWithASecuritySwitchAndNoTestFlagRefusesToStartNamingIt() {
    FleetProcess node = startBare("bare-node", "io.fleetbus.node.boot.NodeMain", List.of(NO_AUTHZ));
    assertNotEquals(0, node.awaitExit(TestFleet.START), "the node stopped with a failure code");
    String said = node.awaitLine("refusing to start the node agent", Duration.ofSeconds(10)).text();
    assertTrue(said.contains("-Dfleetbus.fault.noAuthz=true"), said);
  }

  /** FleetProcess says it is a test run: the hub starts, logs the switch at ERROR, shows it in /ready and /metrics. */
  @Test
  void withTheTestFlagTheHubStartsAndSaysSoLoudly() throws Exception {
    String before = System.setProperty(FaultSwitch.NO_AUTHZ.property(), "true");
    FleetProcess hub;
    try {
      hub = fleet.startHub();
    } finally {
      if (before == null) {
        System.clearProperty(FaultSwitch.NO_AUTHZ.property());
      } else {
        System.setProperty(FaultSwitch.NO_AUTHZ.property(), before);
      }
    }
    String said = hub.awaitLine("SECURITY fault switch -Dfleetbus.fault.noAuthz=true", Duration.ofSeconds(5)).text();
    assertTrue(said.contains("ERROR") && said.contains("[test run]"), said);

    TestFleet.Response ready = fleet.get("/ready");
    assertEquals(200, ready.status(), ready.body().encode());
    JsonObject shown = ready.body().getJsonArray("checks").stream().map(JsonObject.class::cast)
      .filter(c -> "faultSwitches".equals(c.getString("id"))).findFirst().orElseThrow().getJsonObject("data");
    assertEquals("security", shown.getJsonObject("noAuthz").getString("kind"), ready.body().encode());

    HttpResponse<String> metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(fleet.uri("/metrics"))
      .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    assertTrue(metrics.body().contains("fleetbus_fault_switch{kind=\"security\",name=\"noAuthz\"} 1.0"),
      "a gauge per switch on");
  }
}
