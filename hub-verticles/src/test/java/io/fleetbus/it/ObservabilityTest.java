package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A real hub and node: /health, /ready, /metrics after real calls, and one log line per call without its arguments. */
@Timeout(120)
@Tag("cluster")
class ObservabilityTest {
  private static final String SECRET = "hunter2-do-not-log";

  @Test
  void metricsHealthAndCallLogFollowRealCalls() throws Exception {
    try (TestFleet fleet = new TestFleet(500)) {
      FleetProcess hub = fleet.startHub();
      fleet.startNode("n1", "sudo", new JsonObject().put("allowlist", new JsonArray().add("echo")));
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      assertEquals(200, fleet.send(HttpRequest.newBuilder(fleet.uri("/health")).GET(), null).status());
      Response ready = fleet.send(HttpRequest.newBuilder(fleet.uri("/ready")).GET(), null);
      assertEquals(200, ready.status(), ready.body().encode());
      assertEquals("UP", ready.body().getString("status"));

      Response ok = fleet.post("/api/v1/nodes/n1/tools/get_system_info", "{}");
      assertEquals(200, ok.status(), ok.body().encode());
      String okCall = ok.body().getString("callId");
      Response pending = fleet.post("/api/v1/nodes/n1/tools/run_command", "{\"command\": \"echo " + SECRET + "\"}");
      assertEquals(202, pending.status());
      String metricsWhilePending = scrape(fleet);
      assertEquals(1.0, value(metricsWhilePending, "fleetbus_approvals_pending"));
      assertEquals(200, fleet.deny(pending.body().getString("approvalId"), "no").status());
      String denied = pending.body().getString("callId");
      hub.awaitLine("call finished \\[call: " + denied, Duration.ofSeconds(10));
      String okLine = hub.awaitLine("call finished \\[call: " + okCall, Duration.ofSeconds(10)).text();
      assertTrue(okLine.contains("node: n1, tool: get_system_info") && okLine.contains("outcome: ok, code: 200"), okLine);
      assertTrue(hub.awaitLine("call finished \\[call: " + denied, Duration.ofSeconds(1)).contains("code: 403"));

      // SockJS serves its transports from regex routes: their labels must read as paths too
      HttpClient raw = HttpClient.newHttpClient();
      assertEquals(200, raw.send(HttpRequest.newBuilder(fleet.uri("/eventbus/123/abcdefgh/xhr"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding()).statusCode());
      assertEquals(200, raw.send(HttpRequest.newBuilder(fleet.uri("/eventbus/info")).GET().build(),
        HttpResponse.BodyHandlers.discarding()).statusCode());

      String metrics = scrape(fleet);
      assertEquals(0.0, value(metrics, "fleetbus_approvals_pending"));
      assertEquals(1.0, value(metrics, "fleetbus_nodes{state=\"online\"}"));
      assertEquals(1.0, value(metrics, "fleetbus_calls_total{code=\"200\",outcome=\"ok\",tool=\"get_system_info\"}"));
      assertEquals(1.0, value(metrics, "fleetbus_calls_total{code=\"403\",outcome=\"error\",tool=\"run_command\"}"));
      assertEquals(1.0, value(metrics, "fleetbus_call_duration_seconds_count{tool=\"get_system_info\"}"));
      assertTrue(value(metrics, "fleetbus_heartbeats_total{result=\"received\"}") >= 1.0, "heartbeats counted");
      assertTrue(metrics.contains("vertx_eventbus_") && metrics.contains("address=\"fleet.node.*.call\""),
        "event-bus metrics with per-node addresses collapsed");
      assertTrue(metrics.contains("jvm_memory_used_bytes"), "JVM metrics");
      for (String route : List.of("/eventbus/*/*/xhr", "/eventbus/info", "/api/v1/nodes/:nodeId/tools/:tool", "/health")) {
        assertTrue(metrics.contains("route=\"" + route + "\""), "route label " + route + " in:\n" + routes(metrics));
      }
      assertFalse(routes(metrics).stream().anyMatch(r -> r.matches(".*[\\\\\\[\\]()+>^$].*")),
        "regex text or '>' in a route label: " + routes(metrics));
      assertFalse(metrics.contains(okCall) || metrics.contains("\"n1\""), "no call or node id as a label value");
      assertFalse(Files.readString(fleet.dir.resolve("hub.log")).contains(SECRET), "arguments are never logged");
    }
  }

  private static List<String> routes(String scrape) {
    return Pattern.compile("route=\"([^\"]*)\"").matcher(scrape).results().map(m -> m.group(1)).distinct().toList();
  }

  private static String scrape(TestFleet fleet) throws IOException, InterruptedException {
    HttpResponse<String> resp = HttpClient.newHttpClient().send(HttpRequest.newBuilder(fleet.uri("/metrics")).GET().build(),
      HttpResponse.BodyHandlers.ofString());
    assertEquals(200, resp.statusCode());
    return resp.body();
  }

  private static double value(String scrape, String series) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(scrape);
    if (!m.find()) {
      throw new AssertionError("no series " + series + " in /metrics");
    }
    return Double.parseDouble(m.group(1));
  }
}
