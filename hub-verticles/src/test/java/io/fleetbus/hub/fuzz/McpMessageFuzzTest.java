package io.fleetbus.hub.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fuzzed JSON-RPC bodies POSTed to {@code /mcp} of an in-process hub, on an initialized session. A first
 * line starting with {@code @} picks request options ({@code viewer}, {@code nosession}, {@code sse},
 * {@code version:X}). The answer is never a 5xx; every JSON-RPC error is a client error (parse, invalid
 * request, unknown method, invalid params); a tool that failed reports a 4xx inside its result (no node
 * ever joins this hub, so nothing legitimately fails on a node); and the session still answers a ping.
 */
@Tag("fuzz")
class McpMessageFuzzTest {
  private static final Set<Integer> CLIENT_ERRORS = Set.of(-32700, -32600, -32601, -32602);
  private static final String PROBE = "{\"jsonrpc\":\"2.0\",\"id\":\"fuzz-probe\",\"method\":\"ping\"}";
  @RegisterExtension
  static final InProcessHub hub = InProcessHub.perClass();
  private static HttpClient http;
  private static URI mcp;
  private static String adminSession;
  private static String viewerSession;

  @BeforeAll
  static void startSessions() throws Exception {
    http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    mcp = URI.create("http://127.0.0.1:" + hub.httpPort + "/mcp");
    adminSession = initialize(hub.adminToken);
    viewerSession = initialize(hub.viewerToken);
  }

  @FuzzTest(maxDuration = "30s")
  void messagesGetClientErrorsNever5xx(byte[] input) throws Exception {
    String text = new String(input, StandardCharsets.UTF_8);
    List<String> options = List.of();
    String body = text;
    if (text.startsWith("@")) {
      int nl = text.indexOf('\n');
      options = List.of(text.substring(1, nl < 0 ? text.length() : nl).split(" "));
      body = nl < 0 ? "" : text.substring(nl + 1);
    }
    boolean viewer = options.contains("viewer");
    HttpRequest.Builder req = HttpRequest.newBuilder(mcp).timeout(Duration.ofSeconds(10))
      .header("Content-Type", "application/json")
      .header("Authorization", "Bearer " + (viewer ? hub.viewerToken : hub.adminToken))
      .header("Accept", options.contains("sse") ? "application/json, text/event-stream" : "application/json")
      .POST(HttpRequest.BodyPublishers.ofString(body));
    if (!options.contains("nosession")) {
      req.header("Mcp-Session-Id", viewer ? viewerSession : adminSession);
    }
    options.stream().filter(o -> o.startsWith("version:") && o.length() > 8 && o.chars().allMatch(c -> c > 0x20 && c < 0x7f))
      .findFirst().ifPresent(o -> req.header("MCP-Protocol-Version", o.substring(8)));
    HttpResponse<String> resp;
    try {
      // the request timeout only covers the headers: an event stream that never ends must fail too
      resp = http.sendAsync(req.build(), HttpResponse.BodyHandlers.ofString()).get(15, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
      throw new AssertionError("no complete answer within 15 s to: " + text, e);
    }
    assertTrue(resp.statusCode() < 500, "HTTP " + resp.statusCode() + " " + resp.body() + " for: " + text);
    checkMessages(resp, text);
    String sessionId = viewer ? viewerSession : adminSession;
    HttpResponse<String> probe = http.send(HttpRequest.newBuilder(mcp).timeout(Duration.ofSeconds(10))
      .header("Content-Type", "application/json").header("Mcp-Session-Id", sessionId)
      .header("Authorization", "Bearer " + (viewer ? hub.viewerToken : hub.adminToken))
      .POST(HttpRequest.BodyPublishers.ofString(PROBE)).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, probe.statusCode(), "the session stopped answering after: " + text + "; " + probe.body());
    hub.assertNoUnhandled(text);
  }

  /** Every JSON-RPC message in the answer (one JSON body, or the data lines of an event stream). */
  private static void checkMessages(HttpResponse<String> resp, String input) {
    String type = resp.headers().firstValue("Content-Type").orElse("");
    if (resp.body().isEmpty()) {
      return;
    }
    if (type.startsWith("text/event-stream")) {
      resp.body().lines().filter(l -> l.startsWith("data:")).forEach(l -> check(l.substring(5).strip(), input));
    } else {
      check(resp.body(), input);
    }
  }

  private static void check(String json, String input) {
    JsonObject msg = InProcessHub.answer(json, input);
    assertEquals("2.0", msg.getString("jsonrpc"), json);
    JsonObject error = msg.getJsonObject("error");
    if (error != null) {
      assertTrue(CLIENT_ERRORS.contains(error.getInteger("code")), "JSON-RPC error " + json + " for: " + input);
    }
    JsonObject result = msg.getJsonObject("result");
    if (result != null && Boolean.TRUE.equals(result.getValue("isError"))) {
      JsonObject failure = result.getJsonObject("structuredContent").getJsonObject("error");
      assertNotNull(failure, json);
      int code = failure.getInteger("code");
      assertTrue(code >= 400 && code < 500, "tool failed with " + code + ": " + json + " for: " + input);
    }
  }

  private static String initialize(String token) throws Exception {
    HttpResponse<String> resp = http.send(HttpRequest.newBuilder(mcp).timeout(Duration.ofSeconds(10))
      .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
      .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
        + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"fuzz\"}}}")).build(),
      HttpResponse.BodyHandlers.ofString());
    assertEquals(200, resp.statusCode(), resp.body());
    return resp.headers().firstValue("Mcp-Session-Id").orElseThrow();
  }
}
