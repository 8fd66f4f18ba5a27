package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 20 nodes in 4 processes, 200 calls in flight, one process (5 nodes) killed: every call ends in time
 * with a result or a clear error, and no call runs twice.
 */
@Timeout(240)
@Tag("cluster")
class KillNodesUnderLoadTest {
  private static final long ANSWER_DELAY_MS = 1500;
  private static final long CALL_TIMEOUT_MS = 8000;

  @Test
  void everyCallEndsAndNoneRunsTwice() throws Exception {
    List<FleetProcess> pools = new ArrayList<>();
    try (TestFleet fleet = new TestFleet(5000)) {
      fleet.hubConf.put("callTimeoutMs", CALL_TIMEOUT_MS);
      FleetProcess hub = fleet.startHub();
      List<String> nodes = new ArrayList<>();
      for (int p = 0; p < 4; p++) {
        List<String> args = new ArrayList<>(List.of(fleet.clusterName, Integer.toString(fleet.hubClusterPort),
          Long.toString(ANSWER_DELAY_MS)));
        for (int n = 0; n < 5; n++) {
          String id = "sim-" + p + "-" + n;
          args.add(id + "=" + fleet.enrollmentToken(id));
          nodes.add(id);
        }
        pools.add(FleetProcess.start("pool-" + p, "io.fleetbus.it.SimulatedNodes", Map.of(),
          fleet.dir.resolve("pool-" + p + ".log"), args.toArray(String[]::new)));
      }
      for (FleetProcess pool : pools) {
        pool.awaitLine("simulated nodes ready", TestFleet.START);
      }
      for (String id : nodes) {
        hub.awaitLine(TestFleet.onlineLine(id), TestFleet.START);
      }

      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();
      List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
      long t0 = System.nanoTime();
      long[] endedMs = new long[200];
      for (int i = 0; i < 200; i++) {
        String node = nodes.get(i % nodes.size());
        int n = i;
        calls.add(http.sendAsync(HttpRequest.newBuilder(fleet.uri("/api/v1/nodes/" + node + "/tools/get_agent_health"))
          .header("Authorization", "Bearer " + fleet.token()).timeout(Duration.ofSeconds(60))
          .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString())
          .whenComplete((r, e) -> endedMs[n] = (System.nanoTime() - t0) / 1_000_000));
      }
      FleetProcess victim = pools.get(0);
      victim.awaitLine("first call on sim-0-", Duration.ofSeconds(30));
      victim.kill();

      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(CALL_TIMEOUT_MS + 10_000, TimeUnit.MILLISECONDS);
      long allDoneMs = (System.nanoTime() - t0) / 1_000_000;
      Map<Integer, Integer> byStatus = new HashMap<>();
      Map<Integer, Long> lastByStatus = new HashMap<>();
      for (int i = 0; i < calls.size(); i++) {
        HttpResponse<String> r = calls.get(i).get();
        byStatus.merge(r.statusCode(), 1, Integer::sum);
        lastByStatus.merge(r.statusCode(), endedMs[i], Math::max);
        JsonObject body = new JsonObject(r.body());
        String node = nodes.get(i % nodes.size());
        if (r.statusCode() == 200) {
          assertEquals(node, body.getString("nodeId"));
        } else {
          assertTrue(r.statusCode() == 503 || r.statusCode() == 504, r.statusCode() + " " + r.body());
          assertTrue(node.startsWith("sim-0-"), "a call to a surviving node failed: " + r.body());
          assertFalse(body.getJsonObject("error").getString("message").isBlank());
        }
      }
      assertEquals(150, byStatus.getOrDefault(200, 0), "every call to the 15 surviving nodes succeeds: " + byStatus);
      assertTrue(allDoneMs < CALL_TIMEOUT_MS + ANSWER_DELAY_MS, "calls ended only after " + allDoneMs + " ms; statuses "
        + byStatus + ", the last of each after (ms) " + lastByStatus);
      for (FleetProcess pool : pools.subList(1, pools.size())) {
        assertFalse(pool.tail(10_000).contains("DUPLICATE"), "a call ran twice:\n" + pool.tail(20));
      }
      FaultReport.record("6. 20 nodes, 5 killed with 200 calls in flight", "every call ends (result or clear error) before its timeout; none runs twice",
        "statuses " + byStatus + ", the last of each after (ms) " + lastByStatus + "; all ended after " + allDoneMs + " ms (timeout " + CALL_TIMEOUT_MS + " ms); no duplicate");
    } finally {
      pools.forEach(FleetProcess::close);
    }
  }
}
