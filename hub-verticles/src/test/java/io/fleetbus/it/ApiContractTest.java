package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The OpenAPI document describes what a real hub really answers. A hub and a node (real JVMs) answer a request for
 * every documented operation — successes, parked tier-3 calls (202), hub tools and fan-out (nodeId null), refusals —
 * and {@code api-tests/contract.mjs} lints the served document with @redocly/cli and validates every answer against
 * its documented response with Ajv in strict mode, as it does every published tool schema. Skipped (saying why) only
 * when Node.js or api-tests/node_modules is missing.
 */
@Timeout(300)
@Tag("cluster")
class ApiContractTest {
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(Duration.ofSeconds(5)).build();
  private final JsonArray exchanges = new JsonArray();
  private TestFleet fleet;

  @Test
  void realAnswersMatchTheOpenApiDocument() throws Exception {
    String why = NodeScript.unavailable(NodeScript.API_TESTS, "@redocly/cli", "ajv", "ajv-formats");
    assumeTrue(why == null, "API contract test skipped: " + why);
    try (TestFleet f = new TestFleet(1000)) {
      fleet = f;
      FleetProcess hub = fleet.startHub();
      fleet.startNode("n1", "sudo", new JsonObject().put("labels", new JsonObject().put("site", "lab"))
        .put("allowlist", new JsonArray().add("echo")));
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      String admin = fleet.token();
      String approver = fleet.approverToken();

      ops();
      nodesAndTools(admin);
      parkedCalls(admin, approver);
      targetsAndFanOut(admin);
      adminRoutes(admin);
      frontends(admin);
      // last: these change the node's credential, then revoke it
      expect(200, "rekey", "post", "/api/v1/nodes/{nodeId}/rekey", "/api/v1/nodes/n1/rekey", null, admin);
      expect(200, "revoke", "delete", "/api/v1/nodes/{nodeId}", "/api/v1/nodes/n1", null, admin);

      JsonObject document = exchange("openapi", "get", "/api/v1/openapi.json", "/api/v1/openapi.json", null, null)
        .getJsonObject("body");
      assertEverythingDocumentedWasAsked(document);
      Path folder = Files.createDirectories(fleet.dir.resolve("contract"));
      Files.writeString(folder.resolve("openapi.json"), document.encodePrettily());
      Files.writeString(folder.resolve("exchanges.json"), exchanges.encodePrettily());
      NodeScript run = NodeScript.run(NodeScript.API_TESTS, "contract.mjs", List.of(folder.toString()), Map.of(), 180);
      assertEquals(0, run.exitCode(), "the hub's answers or its OpenAPI document break the contract:\n" + run.output());
      assertTrue(run.output().contains("contract: all checks passed"), run.output());
      assertTrue(run.output().contains("lint: 0 error(s)"), run.output());
    }
  }

  private void ops() throws Exception {
    expect(200, "health", "get", "/health", "/health", null, null);
    expect(200, "ready", "get", "/ready", "/ready", null, null);
    expect(200, "metrics", "get", "/metrics", "/metrics", null, null);
    expect(200, "dashboard", "get", "/", "/", null, null);
    // no issuer here: the dashboard offers none, and a sign-in that was never started comes to nothing
    expect(200, "sign-in options", "get", "/login/options", "/login/options", null, null);
    expect(404, "sign-in at no issuer", "get", "/login/start", "/login/start?issuer=0", null, null);
    expect(303, "sign-in callback", "get", "/login/callback", "/login/callback?code=c&state=s", null, null);
    expect(204, "no sign-in waits", "post", "/login/session", "/login/session", null, null);
    expect(401, "no token", "get", "/api/v1/nodes", "/api/v1/nodes", null, null);
  }

  private void nodesAndTools(String admin) throws Exception {
    expect(200, "nodes", "get", "/api/v1/nodes", "/api/v1/nodes", null, admin);
    expect(200, "node", "get", "/api/v1/nodes/{nodeId}", "/api/v1/nodes/n1", null, admin);
    expect(404, "unknown node", "get", "/api/v1/nodes/{nodeId}", "/api/v1/nodes/ghost", null, admin);
    expect(200, "tools", "get", "/api/v1/tools", "/api/v1/tools", null, admin);
    expect(200, "whoami", "get", "/api/v1/whoami", "/api/v1/whoami", null, admin);
    String toolPath = "/api/v1/nodes/{nodeId}/tools/{tool}";
    expect(200, "node tool", "post", toolPath, "/api/v1/nodes/n1/tools/get_system_info", "{}", admin);
    expect(404, "tool failed on the node", "post", toolPath, "/api/v1/nodes/n1/tools/read_file",
      "{\"path\": \"/no/such/file\"}", admin);
    expect(400, "bad arguments", "post", toolPath, "/api/v1/nodes/n1/tools/job_launch", "{\"agent_id\": \"n1\"}", admin);
    expect(200, "hub tool", "post", "/api/v1/tools/{tool}", "/api/v1/tools/list_nodes", "{}", admin);
  }

  private void parkedCalls(String admin, String approver) throws Exception {
    String toolPath = "/api/v1/nodes/{nodeId}/tools/{tool}";
    String echo = "{\"command\": \"echo contract\"}";
    JsonObject parked = expect(202, "parked tier 3", "post", toolPath, "/api/v1/nodes/n1/tools/run_command", echo, admin);
    String callId = parked.getString("callId");
    expect(202, "pending call", "get", "/api/v1/calls/{callId}", "/api/v1/calls/" + callId, null, admin);
    expect(200, "pending approvals", "get", "/api/v1/approvals", "/api/v1/approvals?status=pending", null, admin);
    expect(200, "approve", "post", "/api/v1/approvals/{id}/approve",
      "/api/v1/approvals/" + parked.getString("approvalId") + "/approve", "{\"reason\": \"contract\"}", approver);
    expect(200, "approved call's outcome", "get", "/api/v1/calls/{callId}", "/api/v1/calls/" + callId + "?wait=30", null,
      admin);

    JsonObject denied = expect(202, "parked to deny", "post", toolPath, "/api/v1/nodes/n1/tools/run_command", echo, admin);
    expect(200, "deny", "post", "/api/v1/approvals/{id}/deny", "/api/v1/approvals/" + denied.getString("approvalId")
      + "/deny", null, approver);
    expect(403, "denied call", "get", "/api/v1/calls/{callId}", "/api/v1/calls/" + denied.getString("callId"), null, admin);

    JsonObject waited = expect(202, "parked, waited 1 s", "post", toolPath, "/api/v1/nodes/n1/tools/run_command?wait=1",
      echo, admin);
    expect(200, "cancel", "post", "/api/v1/calls/{callId}/cancel", "/api/v1/calls/" + waited.getString("callId")
      + "/cancel", null, admin);
    exchange("cancelled call", "get", "/api/v1/calls/{callId}", "/api/v1/calls/" + waited.getString("callId"), null, admin);
    expect(404, "unknown call", "get", "/api/v1/calls/{callId}", "/api/v1/calls/no-such-call", null, admin);
    expect(404, "cancel unknown call", "post", "/api/v1/calls/{callId}/cancel", "/api/v1/calls/no-such-call/cancel", null,
      admin);
  }

  private void targetsAndFanOut(String admin) throws Exception {
    expect(200, "by node", "post", "/api/v1/calls", "/api/v1/calls", "{\"tool\": \"get_agent_health\", \"node\": \"n1\"}",
      admin);
    expect(200, "by labels", "post", "/api/v1/calls", "/api/v1/calls",
      "{\"tool\": \"get_agent_health\", \"labels\": {\"site\": \"lab\"}}", admin);
    expect(200, "fan-out", "post", "/api/v1/calls", "/api/v1/calls",
      "{\"tool\": \"get_agent_health\", \"labels\": {\"site\": \"lab\"}, \"mode\": \"all\"}", admin);
    JsonObject parked = expect(202, "parked fan-out", "post", "/api/v1/calls", "/api/v1/calls",
      "{\"tool\": \"run_command\", \"args\": {\"command\": \"echo fan\"}, \"labels\": {\"site\": \"lab\"}, \"mode\": \"all\"}",
      admin);
    expect(200, "cancel fan-out", "post", "/api/v1/calls/{callId}/cancel", "/api/v1/calls/" + parked.getString("callId")
      + "/cancel", null, admin);
    expect(503, "no eligible node", "post", "/api/v1/calls", "/api/v1/calls",
      "{\"tool\": \"get_agent_health\", \"labels\": {\"site\": \"nowhere\"}}", admin);
    expect(400, "unknown field", "post", "/api/v1/calls", "/api/v1/calls", "{\"tool\": \"get_agent_health\", \"agent_id\": 1}",
      admin);
  }

  private void adminRoutes(String admin) throws Exception {
    expect(200, "config", "post", "/api/v1/nodes/{nodeId}/config", "/api/v1/nodes/n1/config",
      "{\"heartbeatIntervalMs\": 1000}", admin);
    expect(201, "enrollment", "post", "/api/v1/enrollments", "/api/v1/enrollments", "{\"nodeId\": \"n2\", \"ttlMinutes\": 5}",
      admin);
    expect(400, "bad enrollment", "post", "/api/v1/enrollments", "/api/v1/enrollments", "{\"node\": \"n2\"}", admin);
    expect(200, "audit", "get", "/api/v1/audit", "/api/v1/audit?limit=50", null, admin);
    expect(400, "bad audit query", "get", "/api/v1/audit", "/api/v1/audit?limit=0", null, admin);
    expect(200, "audit check", "get", "/api/v1/audit/verify", "/api/v1/audit/verify", null, admin);
    expect(200, "cluster", "get", "/api/v1/cluster", "/api/v1/cluster", null, admin);
    expect(200, "stages", "get", "/api/v1/debug/stages", "/api/v1/debug/stages", null, admin);
    expect(204, "forget stages", "delete", "/api/v1/debug/stages", "/api/v1/debug/stages", null, admin);
    expect(201, "revoke a subject", "post", "/api/v1/revocations", "/api/v1/revocations",
      "{\"subject\": \"contract-mallory\"}", admin);
    expect(200, "revocations", "get", "/api/v1/revocations", "/api/v1/revocations", null, admin);
  }

  private void frontends(String admin) throws Exception {
    String wellKnown = "/.well-known/oauth-protected-resource";
    expect(200, "protected resource (hub)", "get", wellKnown, wellKnown, null, null);
    expect(200, "protected resource (mcp)", "get", wellKnown + "/mcp", wellKnown + "/mcp", null, null);
    webSocket("websocket api", "/api/v1/ws", admin);
    webSocket("sockjs raw websocket", "/eventbus/websocket", null);
    expect(200, "sockjs info", "get", "/eventbus/info", "/eventbus/info", null, null);
    expect(403, "sockjs foreign origin", "get", "/eventbus/info", "/eventbus/info", null, null, "Origin", "http://evil.example");

    HttpResponse<String> init = send("post", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
      + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"contract\",\"version\":\"1\"}}}",
      admin, "Accept", "application/json, text/event-stream");
    record("mcp initialize", "post", "/mcp", init, 200);
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    String[] mcp = {"Accept", "application/json, text/event-stream", "Mcp-Session-Id", session};
    expect(202, "mcp initialized", "post", "/mcp", "/mcp", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
      admin, mcp);
    expect(200, "mcp tools/list", "post", "/mcp", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", admin, mcp);
    expect(200, "mcp call with progress (event stream)", "post", "/mcp", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":3,"
      + "\"method\":\"tools/call\",\"params\":{\"name\":\"get_agent_health\",\"arguments\":{\"node\":\"n1\"},"
      + "\"_meta\":{\"progressToken\":\"p1\"}}}", admin, mcp);
    expect(400, "mcp not json", "post", "/mcp", "/mcp", "{nope", admin, mcp);
    expect(401, "mcp no token", "post", "/mcp", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}", null, mcp);
    openStream("mcp event stream", session, admin);
    expect(401, "mcp stream no token", "get", "/mcp", "/mcp", null, null, mcp);
    expect(204, "mcp end session", "delete", "/mcp", "/mcp", null, admin, mcp);
    expect(404, "mcp ended session", "delete", "/mcp", "/mcp", null, admin, mcp);
  }

  /** Every operation of the document was asked at least once. */
  private void assertEverythingDocumentedWasAsked(JsonObject document) {
    Set<String> asked = new TreeSet<>();
    exchanges.forEach(x -> asked.add(((JsonObject) x).getString("method") + " " + ((JsonObject) x).getString("path")));
    Set<String> documented = new TreeSet<>();
    document.getJsonObject("paths").forEach(p -> ((JsonObject) p.getValue()).fieldNames()
      .forEach(m -> documented.add(m + " " + p.getKey())));
    documented.removeAll(asked);
    assertTrue(documented.isEmpty(), "documented but never asked by this test: " + documented);
  }

  private JsonObject expect(int status, String name, String method, String documented, String uri, String body,
                            String token, String... headers) throws Exception {
    JsonObject x = exchange(name, method, documented, uri, body, token, headers);
    assertEquals(status, x.getInteger("status"), name + ": " + x.encode());
    return x.getValue("body") instanceof JsonObject o ? o : new JsonObject();
  }

  private JsonObject exchange(String name, String method, String documented, String uri, String body, String token,
                              String... headers) throws Exception {
    return record(name, method, documented, send(method, uri, body, token, headers), -1);
  }

  private HttpResponse<String> send(String method, String uri, String body, String token, String... headers)
    throws Exception {
    HttpRequest.Builder req = HttpRequest.newBuilder(fleet.uri(uri)).timeout(Duration.ofSeconds(60))
      .method(method.toUpperCase(), body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      req.header("Content-Type", "application/json");
    }
    if (token != null) {
      req.header("Authorization", "Bearer " + token);
    }
    for (int i = 0; i + 1 < headers.length; i += 2) {
      req.header(headers[i], headers[i + 1]);
    }
    return http.send(req.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Keeps what was answered: JSON bodies parsed, other bodies as text, no body as null. */
  private JsonObject record(String name, String method, String documented, HttpResponse<String> resp, int expected) {
    String type = resp.headers().firstValue("Content-Type").orElse("");
    String text = resp.body();
    Object body = text == null || text.isEmpty() ? null : text;
    if (body != null && type.toLowerCase().startsWith("application/json")) {
      try {
        body = Json.decodeValue(text);
      } catch (DecodeException e) {
        throw new AssertionError(name + ": answered " + type + " that is not JSON: " + text, e);
      }
    }
    JsonObject x = new JsonObject().put("name", name).put("method", method).put("path", documented)
      .put("status", resp.statusCode()).put("contentType", type).put("body", body);
    exchanges.add(x);
    if (expected > 0) {
      assertEquals(expected, resp.statusCode(), name + ": " + text);
    }
    return x;
  }

  /** A WebSocket upgrade: recorded as the 101 it was (or what refused it). */
  private void webSocket(String name, String path, String token) throws Exception {
    WebSocket.Builder b = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    WebSocket ws = b.buildAsync(URI.create("ws://127.0.0.1:" + fleet.httpPort + path), new WebSocket.Listener() { })
      .get(20, TimeUnit.SECONDS);
    ws.sendClose(WebSocket.NORMAL_CLOSURE, "contract checked").get(10, TimeUnit.SECONDS);
    exchanges.add(new JsonObject().put("name", name).put("method", "get").put("path", path).put("status", 101)
      .put("contentType", "").putNull("body"));
  }

  /** GET /mcp: an event stream that stays open; its status and content type are what is checked. */
  private void openStream(String name, String session, String token) throws Exception {
    HttpResponse<InputStream> resp = http.send(HttpRequest.newBuilder(fleet.uri("/mcp")).timeout(Duration.ofSeconds(20))
      .header("Authorization", "Bearer " + token).header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
      .GET().build(), HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream ignored = resp.body()) {
      exchanges.add(new JsonObject().put("name", name).put("method", "get").put("path", "/mcp")
        .put("status", resp.statusCode()).put("contentType", resp.headers().firstValue("Content-Type").orElse(""))
        .put("body", ""));
    } catch (IOException e) {
      // closing an endless stream may fail: it was read far enough
    }
    assertEquals(200, resp.statusCode(), name);
  }
}
