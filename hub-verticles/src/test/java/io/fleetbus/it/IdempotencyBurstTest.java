package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.PeerHub;
import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 21: an {@code Idempotency-Key} names one call, whatever the interleaving and whichever hub. Each round
 * sends 20 requests with one key and the same body at once, alternating between two hubs: tier 1 (every answer is
 * the first call's 200, one run on the node) and tier 3 (every answer is the same 202 within 1 s, one approval;
 * once approved, one run, and a retry gets its result). Never a 409. With the fix switched off
 * ({@code -Dfleetbus.fault.idempotencyNoWait=true}: a retry does not wait for the first call's record) retries
 * get 409 "no longer known".
 */
@Timeout(400)
@Tag("cluster")
class IdempotencyBurstTest {
  private static final int ROUNDS = 10;
  private static final int BURST = 20;
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(Duration.ofSeconds(5)).build();

  private record Answer(int status, JsonObject body, long ms) {
  }

  @Test
  void concurrentRequestsWithOneKeyThroughTwoHubsGetTheFirstCallsOutcome() throws Exception {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hubA = fleet.startHub();
      PeerHub hubB = fleet.startPeerHub("hub-b", 1);
      FleetProcess node = fleet.startNode("n1", "sudo", new JsonObject().put("allowlist", List.of("echo")));
      hubA.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      hubB.process().awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      int[] ports = {fleet.httpPort, hubB.httpPort()};
      // both hubs see the node online before the bursts begin
      for (int port : ports) {
        Response warm = fleet.sendTo(port, "POST", "/api/v1/nodes/n1/tools/get_agent_health", "{}", null);
        assertEquals(200, warm.status(), warm.body().encode());
      }
      List<String> seen = new ArrayList<>();
      for (int round = 1; round <= ROUNDS; round++) {
        String key = "burst-" + round + "-" + System.nanoTime();

        List<Answer> tier1 = burst(fleet, ports, "/api/v1/nodes/n1/tools/get_agent_health", "{}", key);
        JsonObject first1 = tier1.get(0).body();
        for (Answer a : tier1) {
          assertEquals(200, a.status(), "round " + round + " tier 1: " + a.body().encode());
          assertEquals(first1.getString("callId"), a.body().getString("callId"), "round " + round + ": another call ran");
          assertEquals(first1.getJsonObject("data"), a.body().getJsonObject("data"), "round " + round + ": another outcome");
        }
        assertEquals(1, count(node, "call received \\[call: " + Pattern.quote(first1.getString("callId"))),
          "round " + round + ": the tier-1 call ran once");

        String command = "echo idem-" + round + "-" + System.nanoTime();
        String args = new JsonObject().put("command", command).encode();
        List<Answer> tier3 = burst(fleet, ports, "/api/v1/nodes/n1/tools/run_command", args, key + "-3");
        JsonObject first3 = tier3.get(0).body();
        for (Answer a : tier3) {
          assertEquals(202, a.status(), "round " + round + " tier 3: " + a.body().encode());
          assertEquals(first3.getString("callId"), a.body().getString("callId"), "round " + round + ": another call parked");
          assertEquals(first3.getString("approvalId"), a.body().getString("approvalId"), "round " + round);
          assertTrue(a.ms() < 1000, "round " + round + ": a tier-3 retry waited " + a.ms() + " ms for its 202");
        }
        long approvals = fleet.get("/api/v1/approvals").body().getJsonArray("approvals").stream()
          .map(JsonObject.class::cast).filter(ap -> command.equals(ap.getJsonObject("args", new JsonObject()).getString("command"))).count();
        assertEquals(1, approvals, "round " + round + ": one approval for the burst");
        Response approved = fleet.approve(first3.getString("approvalId"), "burst round " + round);
        assertEquals(200, approved.status(), approved.body().encode());
        Response result = fleet.get("/api/v1/calls/" + first3.getString("callId") + "?wait=30");
        assertEquals(200, result.status(), result.body().encode());
        for (int port : ports) {
          Response again = fleet.sendTo(port, "POST", "/api/v1/nodes/n1/tools/run_command", args, null,
            "Idempotency-Key", key + "-3");
          assertEquals(200, again.status(), "round " + round + ": a retry after the run gets its result: " + again.body().encode());
          assertEquals(result.body().getJsonObject("data"), again.body().getJsonObject("data"));
        }
        assertEquals(1, count(node, "privileged call started \\[call: " + Pattern.quote(first3.getString("callId"))),
          "round " + round + ": the approved call ran once");
        seen.add(tier1.stream().mapToLong(Answer::ms).max().orElse(0) + "/" + tier3.stream().mapToLong(Answer::ms).max().orElse(0));
      }
      // every call either hub ended is in that hub's audit
      int checked = 0;
      for (int port : ports) {
        JsonObject verify = fleet.sendTo(port, "GET", "/api/v1/audit/verify", null, null).body();
        assertTrue(verify.getBoolean("ok"), verify.encode());
        assertEquals(0, verify.getJsonArray("unaudited").size(), verify.encode());
        checked += verify.getInteger("callsChecked");
      }
      assertTrue(checked >= 2 * ROUNDS, "the hubs checked " + checked + " calls against their audit");
      FaultReport.record("21. " + BURST + " concurrent requests with one Idempotency-Key through two hubs, tier 1 and tier 3 ("
          + ROUNDS + " rounds)", "one run (one approval) per round; every answer the first call's outcome; no 409;"
          + " tier-3 retries answered within 1 s",
        "held in every round; slowest answer per round, tier 1 / tier 3 (ms): " + String.join(", ", seen));
    }
  }

  /** {@link #BURST} requests at once, alternating between the hubs; answers in the order sent. */
  private static List<Answer> burst(TestFleet fleet, int[] ports, String path, String body, String key) throws Exception {
    List<CompletableFuture<Answer>> sent = new ArrayList<>();
    for (int i = 0; i < BURST; i++) {
      HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports[i % ports.length] + path))
        .header("Authorization", "Bearer " + fleet.token()).header("Idempotency-Key", key)
        .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(body)).build();
      long start = System.nanoTime();
      sent.add(HTTP.sendAsync(req, HttpResponse.BodyHandlers.ofString()).thenApply(r -> new Answer(r.statusCode(),
        new JsonObject(r.body()), (System.nanoTime() - start) / 1_000_000)));
    }
    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
    List<Answer> answers = sent.stream().map(CompletableFuture::join).collect(Collectors.toList());
    long conflicts = answers.stream().filter(a -> a.status() == 409).count();
    assertEquals(0, conflicts, "409 answers: " + answers.stream().filter(a -> a.status() == 409).map(a -> a.body().encode())
      .findFirst().orElse(""));
    return answers;
  }

  private static long count(FleetProcess node, String regex) {
    Pattern p = Pattern.compile(regex);
    return node.tail(1_000_000).lines().filter(l -> p.matcher(l).find()).count();
  }
}
