package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetbus.hub.auth.HubKeys;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.jwt.JWTAuth;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real clients against a real hub and node: the official MCP SDK and the Vert.x event-bus bridge client
 * from npm (Node.js scripts in clients/), and the TCP event-bus bridge spoken frame by frame from Java.
 */
@Timeout(300)
@Tag("cluster")
class BridgesAndClientsTest {
  static TestFleet fleet;
  static FleetProcess hub;
  static FleetProcess node;
  static int tcpPort;
  static Path tailFile;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void startFleet() throws IOException {
    fleet = new TestFleet(1000);
    tcpPort = TestFleet.freePort();
    // the MCP client confirms its own tier-3 calls through elicitation (confirm: user); write_file needs a second person
    fleet.hubConf.put("approvals", new JsonObject().put("confirm", "user")
      .put("confirmByTool", new JsonObject().put("write_file", "second-person")));
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
      "FLEETBUS_NODE", "n1", "FLEETBUS_TAIL_FILE", tailFile.toString(), "FLEETBUS_APPROVER_TOKEN", fleet.approverToken(),
      "FLEETBUS_WRITE_DIR", fleet.dir.toString());
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
  void mcpListsOnlyWhatTheRoleAllowsAndRefusesForeignOrigins() throws Exception {
    Vertx vertx = Vertx.vertx();
    String viewer;
    try {
      JWTAuth auth = HubKeys.loadOrCreate(fleet.dir.resolve("hub").resolve("keys")).jwtAuth(vertx);
      viewer = HubKeys.mint(auth, "vera", List.of("viewer"), 10);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    HttpResponse<String> init = mcp(viewer, null, null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
      + "\"params\":{\"protocolVersion\":\"2024-11-05\",\"capabilities\":{},\"clientInfo\":{\"name\":\"java\",\"version\":\"1\"}}}");
    assertEquals(200, init.statusCode(), init.body());
    assertEquals("2025-11-25", new JsonObject(init.body()).getJsonObject("result").getString("protocolVersion"),
      "an unsupported version is answered with the newest");
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    JsonObject list = new JsonObject(mcp(viewer, session, null,
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}").body()).getJsonObject("result");
    String names = list.getJsonArray("tools").stream().map(t -> ((JsonObject) t).getString("name")).toList().toString();
    assertTrue(names.contains("get_system_info") && names.contains("list_nodes"), names);
    assertFalse(names.contains("run_command"), "a viewer is offered no tier-3 tool: " + names);
    JsonObject refused = new JsonObject(mcp(viewer, session, null, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
      + "\"params\":{\"name\":\"run_command\",\"arguments\":{\"node\":\"n1\",\"command\":\"echo x\"}}}").body())
      .getJsonObject("result");
    assertTrue(refused.getBoolean("isError"));
    assertTrue(refused.getJsonArray("content").encode().contains("403"), refused.encode());
    assertEquals(404, mcp(fleet.token(), session, null, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}").statusCode(),
      "a session belongs to the subject that opened it");
    assertEquals(400, mcp(viewer, null, null, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}").statusCode());
    assertEquals(401, mcp(null, session, null, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}").statusCode());
    assertEquals(403, mcp(viewer, session, "http://evil.example", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}")
      .statusCode());
    assertEquals(200, mcp(viewer, session, "http://127.0.0.1:" + fleet.httpPort,
      "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}").statusCode(), "the hub's own origin is allowed");
  }

  private static HttpResponse<String> mcp(String token, String session, String origin, String body) throws Exception {
    HttpRequest.Builder req = HttpRequest.newBuilder(fleet.uri("/mcp")).header("Content-Type", "application/json")
      .header("Accept", "application/json, text/event-stream").POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      req.header("Authorization", "Bearer " + token);
    }
    if (session != null) {
      req.header("Mcp-Session-Id", session);
    }
    if (origin != null) {
      req.header("Origin", origin);
    }
    return HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
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
