package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15, part 2, as defence in depth: even on a hub whose member pinning is off (so an impostor's consumer on the
 * node's call address draws calls), the impostor's failure answers never reach a caller — a node proves its failures
 * like its results, and a bare bus failure is dropped ({@code result dropped […]}, outcome unknown, GET /calls/{id}
 * asks the node). With {@code -Dfleetbus.fault.unprovenFailures=true} the impostor's text reaches callers verbatim.
 * Part 3 likewise: the node's pinning is off too, so an impostor consumer on a call's stream address draws some of
 * its chunks, and reads none of them (sealed; {@code -Dfleetbus.fault.noCallSealing=true}: it reads the output).
 */
@Timeout(300)
@Tag("cluster")
class UnpinnedImpostorTest {
  static TestFleet fleet;
  static FleetProcess hub;
  static RogueMember rogue;
  static String pinningBefore;

  @BeforeAll
  static void startFleetWithoutPinning() throws Exception {
    // the fleet's processes take the test JVM's fleetbus.fault.* switches when they start
    pinningBefore = System.setProperty("fleetbus.fault.noMemberPinning", "true");
    try {
      fleet = new TestFleet(1000);
      hub = fleet.startHub();
      fleet.startNode("n1", "sudo", new JsonObject().put("allowlist", new io.vertx.core.json.JsonArray().add("echo")
        .add("sleep")));
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
    } finally {
      if (pinningBefore == null) {
        System.clearProperty("fleetbus.fault.noMemberPinning");
      } else {
        System.setProperty("fleetbus.fault.noMemberPinning", pinningBefore);
      }
    }
    rogue = fleet.closing(RogueMember.join(fleet, null));
  }

  @AfterAll
  static void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  void anImpostorReadsNoArgumentsAndItsFailuresReachNoCaller() throws Exception {
    List<String> drawn = java.util.Collections.synchronizedList(new ArrayList<>());
    List<String> seenArgs = java.util.Collections.synchronizedList(new ArrayList<>());
    MessageConsumer<ToolCall> impostor = rogue.vertx().eventBus().consumer(Addresses.nodeCall("n1"), m -> {
      drawn.add(m.body().callId());
      seenArgs.add(m.body().args().encode());
      m.fail(403, "IMPOSTOR-ANSWER: your session expired, re-login at http://evil.example");
    });
    impostor.completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    List<TestFleet.Response> answers = new ArrayList<>();
    // calls until the impostor has drawn a few (the hub round-robins once it has heard of the impostor's consumer)
    String marker = "secret-marker-" + System.nanoTime();
    for (int i = 0; i < 300 && drawn.size() < 4; i++) {
      answers.add(fleet.post("/api/v1/nodes/n1/tools/read_file", new JsonObject().put("path", "/tmp/" + marker).encode()));
    }
    impostor.unregister().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertTrue(drawn.size() >= 4, "the impostor drew calls (pinning is off here): " + drawn.size());
    String all = answers.stream().map(r -> r.status() + " " + r.body().encode()).toList().toString();
    assertFalse(all.contains("IMPOSTOR") || all.contains("evil.example"), "an impostor's failure reached a caller: " + all);
    long dropped = answers.stream().filter(r -> r.status() == 500 && r.body().getJsonObject("error") != null
      && r.body().getJsonObject("error").getString("message").contains("did not carry node 'n1''s proof")).count();
    assertEquals(drawn.size(), dropped, all);
    // part 3: what the impostor drew was sealed for the node (switch: -Dfleetbus.fault.noCallSealing=true)
    assertTrue(seenArgs.stream().noneMatch(a -> a.contains(marker)), "the impostor read the arguments: " + seenArgs);
    assertTrue(seenArgs.stream().allMatch(a -> a.startsWith("{\"sealed\":\"")), seenArgs.toString());
    hub.awaitLine("result dropped \\[call: .*, node: n1, reason: proof does not verify, answer: failure \\(403", Duration.ofSeconds(5));
    // the node's own failures still come through, proved: an unknown argument is refused by the node's schema check
    TestFleet.Response refused = fleet.post("/api/v1/nodes/n1/tools/read_file", new JsonObject().put("path",
      "/definitely/not/there").encode());
    assertEquals(404, refused.status(), refused.body().encode());
    FaultReport.record("15.2 An impostor on a node's call address (pinning off) answers calls with failures",
      "no caller sees its text; its answers are dropped as unproven; the node's own failures still arrive",
      drawn.size() + " calls drawn (arguments sealed: " + seenArgs.size() + " of " + drawn.size() + "), " + dropped
        + " answers dropped, 0 impostor texts reached callers; the node's 404 arrived");
  }

  @Test
  void anImpostorOnACallsStreamReadsNoneOfItsOutput() throws Exception {
    List<String> drawn = java.util.Collections.synchronizedList(new ArrayList<>());
    StringBuilder callerHeard = new StringBuilder();
    // each call streams three lines; the node sends chunks round-robin to the hub's and the impostor's consumer
    for (int i = 0; i < 6 && drawn.stream().noneMatch(d -> !d.isEmpty()); i++) {
      try (WsTestClient ws = WsTestClient.connect(fleet.clientVertx(), fleet, fleet.token(), 0)) {
        String id = "s" + i;
        ws.send(new JsonObject().put("type", "call").put("id", id).put("node", "n1").put("tool", "run_script")
          .put("args", new JsonObject().put("interpreter", "bash").put("script",
            "echo STREAM-SECRET-1; sleep 0.2; echo STREAM-SECRET-2; sleep 0.2; echo STREAM-SECRET-3")).put("stream", true));
        JsonObject parked = ws.await(m -> "approval_required".equals(m.getString("type")), Duration.ofSeconds(15));
        String callId = parked.getString("callId");
        MessageConsumer<io.fleetbus.shared.msg.StreamChunk> impostor = rogue.vertx().eventBus()
          .consumer(Addresses.callStream(callId), m -> drawn.add(m.body().fin() ? "" : m.body().data()));
        impostor.completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        TestFleet.Response approved = fleet.approve(parked.getString("approvalId"), "test");
        assertEquals(200, approved.status(), approved.body().encode());
        ws.await(m -> id.equals(m.getString("id")) && ("error".equals(m.getString("type"))
          || "result".equals(m.getString("type"))), Duration.ofSeconds(20));
        impostor.unregister().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        ws.skipped().stream().filter(m -> "chunk".equals(m.getString("type"))).forEach(m -> callerHeard.append(m.encode()));
      }
    }
    List<String> output = drawn.stream().filter(d -> !d.isEmpty()).toList();
    assertFalse(output.isEmpty(), "the impostor drew output chunks (pinning is off here): " + drawn);
    assertTrue(output.stream().noneMatch(d -> d.contains("STREAM-SECRET")), "the impostor read the output: " + output);
    assertTrue(callerHeard.toString().contains("STREAM-SECRET"), "the caller still reads what reached the hub: "
      + callerHeard);
    FaultReport.record("15.3 An impostor on a call's stream address (pinning off on hub and node) draws output chunks",
      "it reads none of them (sealed for the hub); the caller reads the chunks that reach the hub",
      output.size() + " output chunks drawn, 0 readable; the caller's WebSocket showed the output");
  }

  /**
   * An impostor that relays one call to the node keeps the node's proved answer and replays it as the answer to later
   * calls: the proof verifies (it is the node's), but it answers another call, so the hub drops it.
   */
  @Test
  void aProvedAnswerReplayedForAnotherCallIsDropped() throws Exception {
    java.nio.file.Path first = java.nio.file.Files.writeString(fleet.dir.resolve("first.txt"), "FIRST-CONTENT\n");
    java.nio.file.Path second = java.nio.file.Files.writeString(fleet.dir.resolve("second.txt"), "SECOND-CONTENT\n");
    java.util.concurrent.CompletableFuture<io.vertx.core.eventbus.Message<ToolCall>> drawnFirst =
      new java.util.concurrent.CompletableFuture<>();
    MessageConsumer<ToolCall> catcher = rogue.vertx().eventBus().consumer(Addresses.nodeCall("n1"), drawnFirst::complete);
    catcher.completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    Thread caller = new Thread(() -> {
      // calls until the impostor draws one (the hub round-robins once it has heard of the impostor's consumer)
      for (int i = 0; i < 300 && !drawnFirst.isDone(); i++) {
        fleet.post("/api/v1/nodes/n1/tools/read_file", new JsonObject().put("path", first.toString()).encode());
      }
    });
    caller.start();
    io.vertx.core.eventbus.Message<ToolCall> drawn = drawnFirst.get(60, TimeUnit.SECONDS);
    catcher.unregister().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    // relay it to the real node (the only consumer now) and keep the node's proved answer
    ToolResult proved = rogue.vertx().eventBus().<ToolResult>request(Addresses.nodeCall("n1"), drawn.body())
      .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS).body();
    drawn.reply(proved);
    caller.join(30_000);
    List<String> replayed = java.util.Collections.synchronizedList(new ArrayList<>());
    MessageConsumer<ToolCall> replayer = rogue.vertx().eventBus().consumer(Addresses.nodeCall("n1"), m -> {
      replayed.add(m.body().callId());
      m.reply(proved);
    });
    replayer.completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    List<TestFleet.Response> later = new ArrayList<>();
    for (int i = 0; i < 300 && replayed.size() < 3; i++) {
      later.add(fleet.post("/api/v1/nodes/n1/tools/read_file", new JsonObject().put("path", second.toString()).encode()));
    }
    replayer.unregister().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertTrue(replayed.size() >= 3, "the impostor answered later calls: " + replayed.size());
    String all = later.stream().map(r -> r.status() + " " + r.body().encode()).toList().toString();
    assertFalse(all.contains("FIRST-CONTENT"), "a replayed answer to another call reached a caller: " + all);
    hub.awaitLine("result dropped \\[call: .*, node: n1, reason: ", Duration.ofSeconds(5));
    FaultReport.record("15.2 An impostor relays one call to the node and replays the node's proved answer for later"
        + " calls (pinning off)", "the proof verifies but answers another call: dropped, no caller gets another call's data",
      replayed.size() + " replays, 0 reached a caller");
  }
}
