package io.fleetbus.hub.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.fuzz.InProcessHub;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every 400 names the field(s): missing ones by name (also "give this or that"), unknown ones by name, a wrong type or
 * value with the field's path; a body that is not JSON says where, in plain words (no parser class names). Over REST
 * for tool arguments, calls by target, enrollments, decisions and node settings, and over MCP.
 */
@Timeout(120)
class RefusalsNameTheFieldTest {
  /** What the parser's own text would show; a person should see none of it. */
  private static final List<String> PARSER_WORDS = List.of("jackson", "Source:", "REDACTED", "StreamReadFeature",
    "Exception", "(code ");
  @RegisterExtension
  static final InProcessHub hub = InProcessHub.perClass();
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @Test
  void toolArgumentsRefusalsNameEachField() throws Exception {
    String[][] cases = {
      // tool, body, what the message must say
      {"job_launch", "{}", "missing required field: give 'command' or 'script'"},
      {"run_script", "{}", "missing required field: give 'script' or 'command'"},
      {"job_status", "{}", "missing required field: give 'job_id' or 'execution_id'"},
      {"run_command", "{}", "missing required field 'command'"},
      {"run_command", "{\"agent_id\": \"n1\", \"command\": \"ls\"}", "unknown field 'agent_id' (run_command takes [args, command,"},
      {"get_agent_health", "{\"agent_id\": \"n1\"}", "unknown field 'agent_id' (get_agent_health takes no fields)"},
      {"get_running_processes", "{\"limit\": \"ten\"}", "field 'limit' must be an integer, not a string"},
      {"get_running_processes", "{\"limit\": 500}", "field 'limit' must be at most 200, not 500"},
      {"run_command", "{\"command\": \"ls\", \"args\": [\"-l\", 3]}", "field 'args[1]' must be a string, not an integer"},
      {"multi_edit", "{\"path\": \"/tmp/x\", \"edits\": [{\"old\": \"a\"}]}", "'edits[0].target_content'"},
      {"multi_edit", "{\"path\": \"/tmp/x\", \"edits\": [{\"old\": \"a\"}]}", "unknown field 'edits[0].old'"},
      {"job_launch", "{\"command\": \"true\", \"env\": {\"A\": 1}}", "field 'env.A' must be a string, not an integer"},
    };
    for (String[] c : cases) {
      String message = refusal(post("/api/v1/nodes/n1/tools/" + c[0], c[1]), c[0] + " " + c[1]);
      assertTrue(message.startsWith("invalid arguments for " + c[0] + ": "), message);
      assertTrue(message.contains(c[2]), c[0] + " " + c[1] + " → " + message);
      assertFalse(message.contains("[]"), "no empty list of fields: " + message);
    }
    String both = refusal(post("/api/v1/nodes/n1/tools/run_command", "{\"agent_id\": \"n1\", \"timeout_seconds\": \"x\"}"), "");
    for (String part : new String[] {"missing required field 'command'", "unknown field 'agent_id'",
      "field 'timeout_seconds' must be an integer, not a string"}) {
      assertTrue(both.contains(part), "every problem at once: " + both);
    }
    assertTrue(refusal(post("/api/v1/tools/list_nodes", "{\"agent_id\": 1}"), "hub tool").contains("unknown field 'agent_id'"));
  }

  @Test
  void aBodyThatIsNotJsonSaysWhereInPlainWords() throws Exception {
    for (String path : new String[] {"/api/v1/nodes/n1/tools/get_agent_health", "/api/v1/tools/list_nodes", "/api/v1/calls",
      "/api/v1/enrollments", "/api/v1/approvals/a1/approve", "/api/v1/approvals/a1/deny", "/api/v1/nodes/n1/config"}) {
      String message = refusal(post(path, "{nope: 1}"), path);
      assertTrue(message.startsWith("body is not JSON: unexpected character 'n'"), path + " → " + message);
      assertTrue(message.contains("(line 1, column 2)"), path + " → " + message);
      PARSER_WORDS.forEach(w -> assertFalse(message.contains(w), path + " → " + message));
      String unclosed = refusal(post(path, "{\"a\": [1, 2}"), path);
      assertTrue(unclosed.startsWith("body is not JSON: ") && unclosed.contains("(line 1, column 12)"), path + " → " + unclosed);
      assertEquals("body must be a JSON object, not an array", refusal(post(path, "[1]"), path));
    }
  }

  @Test
  void otherBodiesNameTheirFields() throws Exception {
    String[][] cases = {
      {"/api/v1/calls", "{\"tool\": \"get_agent_health\", \"agent_id\": \"n1\"}", "unknown field 'agent_id' (a call by target takes"},
      {"/api/v1/calls", "{\"agent_id\": \"n1\"}", "missing required field 'tool'"},
      {"/api/v1/calls", "{\"agent_id\": \"n1\"}", "unknown field 'agent_id'"},
      {"/api/v1/calls", "{\"tool\": \"get_agent_health\", \"args\": [], \"node\": 7}", "field 'args' must be a JSON object"},
      {"/api/v1/calls", "{\"tool\": \"get_agent_health\", \"args\": [], \"node\": 7}", "field 'node' must be a node id"},
      {"/api/v1/calls", "{\"tool\": \"job_launch\", \"node\": \"n1\", \"args\": {}}", "give 'command' or 'script'"},
      {"/api/v1/enrollments", "{\"node\": \"web-1\"}", "unknown field 'node' (an enrollment takes [nodeId, ttlMinutes])"},
      {"/api/v1/enrollments", "{\"nodeId\": 5}", "field 'nodeId' must be a string or null, not an integer"},
      {"/api/v1/enrollments", "{\"nodeId\": \"bad id!\"}", "field 'nodeId' must match the pattern"},
      {"/api/v1/enrollments", "{\"ttlMinutes\": 0}", "field 'ttlMinutes' must be at least 1, not 0"},
      {"/api/v1/enrollments", "{\"ttlMinutes\": 1.5}", "field 'ttlMinutes' must be an integer or null, not a number"},
      {"/api/v1/approvals/a1/approve", "{\"reson\": \"ok\"}", "unknown field 'reson' (a decision takes [reason])"},
      {"/api/v1/approvals/a1/deny", "{\"reason\": 5}", "field 'reason' must be a string or null, not an integer"},
    };
    for (String[] c : cases) {
      String message = refusal(post(c[0], c[1]), c[0] + " " + c[1]);
      assertTrue(message.contains(c[2]), c[0] + " " + c[1] + " → " + message);
    }
  }

  @Test
  void mcpToolCallsNameTheFieldToo() throws Exception {
    String session = mcpInitialize();
    String noNode = mcpToolError(session, "run_command", "{\"agent_id\": \"n1\", \"command\": \"ls\"}");
    assertTrue(noNode.contains("missing required field 'node'"), noNode);
    assertTrue(noNode.contains("unknown field 'agent_id'"), "the field sent instead of node is named: " + noNode);
    String eitherOr = mcpToolError(session, "job_launch", "{\"node\": \"n1\"}");
    assertTrue(eitherOr.contains("give 'command' or 'script'"), eitherOr);
    HttpResponse<String> notJson = mcp(session, "{\"jsonrpc\": \"2.0\", \"id\": 1, nope}");
    assertEquals(400, notJson.statusCode(), notJson.body());
    JsonObject error = new JsonObject(notJson.body()).getJsonObject("error");
    assertEquals(-32700, error.getInteger("code"));
    assertTrue(error.getString("message").startsWith("body is not JSON: ") && error.getString("message").contains("column"),
      error.encode());
    PARSER_WORDS.forEach(w -> assertFalse(error.getString("message").contains(w), error.encode()));
  }

  private static String refusal(HttpResponse<String> resp, String what) {
    assertEquals(400, resp.statusCode(), what + " → " + resp.body());
    JsonObject error = new JsonObject(resp.body()).getJsonObject("error");
    assertEquals(400, error.getInteger("code"), resp.body());
    return error.getString("message");
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + hub.httpPort + path))
      .header("Authorization", "Bearer " + hub.adminToken).header("Content-Type", "application/json")
      .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
      HttpResponse.BodyHandlers.ofString());
  }

  private static String mcpInitialize() throws Exception {
    HttpResponse<String> init = mcp(null, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
      + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}");
    assertEquals(200, init.statusCode(), init.body());
    return init.headers().firstValue("Mcp-Session-Id").orElseThrow();
  }

  /** The text of a tool call's error result (MCP reports tool failures inside the result, isError true). */
  private static String mcpToolError(String session, String tool, String args) throws Exception {
    HttpResponse<String> resp = mcp(session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
      + "{\"name\":\"" + tool + "\",\"arguments\":" + args + "}}");
    assertEquals(200, resp.statusCode(), resp.body());
    JsonObject result = new JsonObject(resp.body()).getJsonObject("result");
    assertTrue(result.getBoolean("isError"), resp.body());
    return result.getJsonArray("content").encode();
  }

  private static HttpResponse<String> mcp(String session, String body) throws Exception {
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + hub.httpPort + "/mcp"))
      .header("Authorization", "Bearer " + hub.adminToken).header("Content-Type", "application/json")
      .header("Accept", "application/json, text/event-stream").timeout(Duration.ofSeconds(30))
      .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      req.header("Mcp-Session-Id", session);
    }
    return HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
  }
}
