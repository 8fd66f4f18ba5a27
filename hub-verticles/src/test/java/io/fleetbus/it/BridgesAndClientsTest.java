package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real clients against a real hub and node: the official MCP SDK and the Vert.x event-bus bridge client
 * from npm (Node.js scripts in clients/), and the TCP event-bus bridge spoken frame by frame from Java.
 */
@Timeout(300)
class BridgesAndClientsTest {
  static TestFleet fleet;
  static FleetProcess hub;
  static FleetProcess node;
  static int tcpPort;
  static Path tailFile;

  @BeforeAll
  static void startFleet() throws IOException {
    fleet = new TestFleet(1000);
    tcpPort = TestFleet.freePort();
    hub = fleet.startHub("hub", Map.of("FLEETBUS_TCP_BRIDGE_PORT", Integer.toString(tcpPort)));
    node = fleet.startNode("n1", "sudo", new JsonObject()
      .put("allowlist", new JsonArray().add("sleep").add("echo").add("tail")));
    tailFile = Files.writeString(fleet.dir.resolve("follow-me.txt"), "first line\n");
    hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
  }

  @AfterAll
  static void stopFleet() {
    if (fleet != null) {
      fleet.close();
    }
  }

  private static Map<String, String> clientEnv() {
    return Map.of("FLEETBUS_URL", "http://127.0.0.1:" + fleet.httpPort, "FLEETBUS_TOKEN", fleet.token(),
      "FLEETBUS_NODE", "n1", "FLEETBUS_TAIL_FILE", tailFile.toString());
  }

  private static NodeScript runScript(String script) {
    String why = NodeScript.unavailable();
    assumeTrue(why == null, "Node.js client tests skipped: " + why);
    NodeScript run = NodeScript.run(script, clientEnv(), 200);
    assertEquals(0, run.exitCode(), script + " failed; its output:\n" + run.output() + "\nhub log tail:\n" + hub.tail(30));
    return run;
  }

  @Test
  void officialMcpSdkClientDrivesTheFleet() {
    NodeScript run = runScript("mcp-client.test.mjs");
    assertTrue(run.output().contains("mcp-client: all checks passed"), run.output());
    Matcher cancelled = Pattern.compile("cancelled-call: (\\S+)").matcher(run.output());
    assertTrue(cancelled.find(), run.output());
    node.awaitLine("call cancelled \\[call: " + Pattern.quote(cancelled.group(1)), Duration.ofSeconds(10));
  }

  @Test
  void vertxEventBusBridgeClientCallsAndListens() {
    NodeScript run = runScript("eventbus-bridge.test.mjs");
    assertTrue(run.output().contains("eventbus-bridge: all checks passed"), run.output());
  }

  @Test
  void tcpBridgeHasTheSamePermissions() throws IOException {
    JsonObject auth = new JsonObject().put("authorization", "Bearer " + fleet.token());
    try (TcpBridgeClient tcp = new TcpBridgeClient(tcpPort)) {
      tcp.write(new JsonObject().put("type", "send").put("address", "fleet.bridge.call").put("replyAddress", "r1")
        .put("headers", auth).put("body", new JsonObject().put("node", "n1").put("tool", "get_agent_health")));
      JsonObject ok = tcp.readFor("r1");
      assertEquals("message", ok.getString("type"), ok.encode());
      assertEquals("ok", ok.getJsonObject("body").getString("status"));
      assertEquals("n1", ok.getJsonObject("body").getJsonObject("data").getString("nodeId"));

      tcp.write(new JsonObject().put("type", "send").put("address", "fleet.bridge.call").put("replyAddress", "r2")
        .put("body", new JsonObject().put("node", "n1").put("tool", "get_agent_health")));
      JsonObject noToken = tcp.readFor("r2");
      assertEquals("err", noToken.getString("type"), noToken.encode());
      assertEquals(401, noToken.getInteger("failureCode"));

      tcp.write(new JsonObject().put("type", "send").put("address", "fleet.node.n1.call").put("replyAddress", "r3")
        .put("headers", auth).put("body", new JsonObject().put("tool", "get_agent_health")));
      JsonObject refused = tcp.readFor("r3");
      assertEquals("err", refused.getString("type"), refused.encode());

      tcp.write(new JsonObject().put("type", "register").put("address", "fleet.bridge.heartbeat").put("headers", auth));
      JsonObject beat = tcp.readFor("fleet.bridge.heartbeat");
      assertEquals("n1", beat.getJsonObject("body").getString("nodeId"), beat.encode());
      assertNotNull(beat.getJsonObject("body").getJsonObject("metrics"));
      assertFalse(beat.getJsonObject("body").containsKey("credential"));
    }
    try (TcpBridgeClient anonymous = new TcpBridgeClient(tcpPort)) {
      anonymous.write(new JsonObject().put("type", "register").put("address", "fleet.events"));
      JsonObject denied = anonymous.read();
      assertEquals("err", denied.getString("type"), denied.encode());
    }
  }
}
