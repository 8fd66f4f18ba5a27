package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.monitor.MonitorService;
import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.Metrics;
import io.fleetbus.shared.msg.StreamChunk;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.DirectiveClaims;
import io.fleetbus.shared.trust.Ed25519Keys;
import io.fleetbus.shared.trust.EdDsaJws;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member that joined the cluster by name alone: its directives, control, heartbeats and answers
 * are refused or dropped, and the node runs nothing it sends.
 */
@Timeout(300)
@Tag("cluster")
class RogueMemberTest {
  static TestFleet fleet;
  static FleetProcess hub;
  static FleetProcess node;
  static RogueMember rogue;
  static int tcpPort;
  static long rogueJoinedAt;

  @BeforeAll
  static void startFleet() throws Exception {
    fleet = new TestFleet(1000);
    tcpPort = TestFleet.freePort();
    hub = fleet.startHub("hub", java.util.Map.of("FLEETBUS_TCP_BRIDGE_PORT", Integer.toString(tcpPort)));
    node = fleet.startNode("n1", "sudo", new JsonObject().put("allowlist", new JsonArray().add("touch").add("echo")));
    hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
    rogue = fleet.closing(RogueMember.join(fleet, null));
    rogueJoinedAt = System.currentTimeMillis();
    // it poses as a hub of the fleet: the hubs' list is a plain map anyone writes, but entries must carry the fleet's
    // signature, and this one is signed with the rogue's own key
    String fleetId = fleet.get("/ready").body().getJsonArray("checks").stream().map(JsonObject.class::cast)
      .filter(c -> "cluster".equals(c.getString("id"))).findFirst().orElseThrow().getJsonObject("data").getString("fleetId");
    rogue.writeMap("fleetbus.hubs", rogue.memberId(), EdDsaJws.sign(Ed25519Keys.privateKey(Ed25519Keys.generatePem()[0]),
      "hub", new JsonObject().put("member", rogue.memberId()).put("fleetId", fleetId)));
  }

  @AfterAll
  static void stopFleet() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
  }

  private static ToolCall touch(String id, Path target) {
    return new ToolCall(id, null, "rogue", List.of("admin"), "run_command",
      new JsonObject().put("command", "touch " + target).put("timeout_seconds", 25), "n1", null, 5000, false, null);
  }

  /** The failure code of a request the rogue sends, or 0 when it was answered (a node proves its failures: a reply). */
  private static int rogueRequest(String address, Object body) throws Exception {
    try {
      var reply = rogue.vertx().eventBus().request(address, body, new DeliveryOptions().setSendTimeout(10_000))
        .toCompletionStage().toCompletableFuture().get(15, TimeUnit.SECONDS);
      if (reply.headers().contains(io.fleetbus.shared.bus.FleetReplies.PROVEN_FAILURE)) {
        return ((ToolResult) reply.body()).errorCode();
      }
      return 0;
    } catch (ExecutionException e) {
      return e.getCause() instanceof ReplyException re ? re.failureCode() : -1;
    }
  }

  @Test
  void forgedDirectivesAndControlAreRefusedAndNothingRuns() throws Exception {
    Path pwned = fleet.dir.resolve("pwned");
    assertEquals(401, rogueRequest(Addresses.nodeCall("n1"), touch("rogue-unsigned", pwned)));
    node.awaitLine("directive refused \\[call: rogue-unsigned, .*no hub signature", Duration.ofSeconds(10));

    // well formed and signed, but with the rogue's own key
    var rogueKey = Ed25519Keys.privateKey(Ed25519Keys.generatePem()[0]);
    ToolCall forged = touch("rogue-forged", pwned);
    forged = forged.withSignature(EdDsaJws.sign(rogueKey, "hub", DirectiveClaims.forCall(forged, 3,
      System.currentTimeMillis(), 30_000).toJson()));
    assertEquals(401, rogueRequest(Addresses.nodeCall("n1"), forged));
    node.awaitLine("directive refused \\[call: rogue-forged, .*does not verify", Duration.ofSeconds(10));

    assertEquals(401, rogueRequest(Addresses.nodeControl("n1"), new Control(Control.CANCEL,
      new JsonObject().put("callId", "anything"))));
    node.awaitLine("control refused \\[node: n1, type: cancel", Duration.ofSeconds(10));

    assertFalse(Files.exists(pwned), "the node ran nothing");
    assertFalse(node.tail(10_000).contains("privileged call started"), node.tail(40));
    assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status(), "the hub's own calls still work");
  }

  /**
   * A rogue hears none of the node's heartbeats (the node sends to proven hubs only: switch
   * {@code -Dfleetbus.fault.noMemberPinning=true}); what it forges is dropped, and a real heartbeat replayed (here one
   * proved with the node's own credential, read from its data folder, as a thief with a copy of it could) counts once.
   */
  @Test
  void theRogueHearsNoHeartbeatAndForgedOrReplayedOnesAreDropped() throws Exception {
    java.util.List<Heartbeat> overheard = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    MessageConsumer<Heartbeat> spy = rogue.vertx().eventBus().consumer(Addresses.HEARTBEAT, m -> overheard.add(m.body()));
    spy.completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    try (TcpBridgeClient tcp = new TcpBridgeClient(tcpPort)) {
      tcp.write(new JsonObject().put("type", "register").put("address", Addresses.BRIDGE_HEARTBEAT_JSON)
        .put("headers", new JsonObject().put("Authorization", "Bearer " + fleet.token())));
      for (int beats = 0; beats < 3; ) {
        beats += "n1".equals(tcp.readFor(Addresses.BRIDGE_HEARTBEAT_JSON).getJsonObject("body").getString("nodeId")) ? 1 : 0;
      }
    }
    spy.unregister();
    assertEquals(List.of(), overheard, "the rogue overheard the node's heartbeats");

    int mark = hub.mark();
    String instanceId = fleet.get("/api/v1/nodes/n1").body().getString("instanceId");
    Metrics fake = new Metrics(99.99, 1, 1, 1, 1, 9.99, null);
    rogue.vertx().eventBus().publish(Addresses.HEARTBEAT, new Heartbeat("n1", instanceId, 1_000_000,
      System.currentTimeMillis(), fake, "not-a-proof"));
    // logged once per kind of forgery (another test may have caused it first); the node's metrics below show it had no effect
    hub.awaitLine("unverified message dropped \\[address: fleet.heartbeat, type: heartbeat, node: n1", Duration.ofSeconds(10));
    // a copy of the node's identity file (never the live folder: its journal belongs to the running node)
    java.nio.file.Path copy = Files.createDirectories(fleet.dir.resolve("stolen").resolve("trust"));
    Files.copy(fleet.dir.resolve("node-n1").resolve("trust").resolve("identity.json"), copy.resolve("identity.json"),
      java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    io.fleetbus.node.trust.NodeTrust stolen = io.fleetbus.node.trust.NodeTrust.load("n1", copy.getParent(), null,
      io.fleetbus.shared.catalog.ToolCatalog.load());
    Heartbeat seen = stolen.prove(new Heartbeat("n1", instanceId, 2_000_000, System.currentTimeMillis(),
      fleet.get("/api/v1/nodes/n1").body().getJsonObject("metrics") == null ? fake
        : Metrics.fromJson(fleet.get("/api/v1/nodes/n1").body().getJsonObject("metrics")), null));
    rogue.vertx().eventBus().publish(Addresses.HEARTBEAT, seen);
    rogue.vertx().eventBus().publish(Addresses.HEARTBEAT, seen);
    hub.awaitLine("heartbeat dropped \\[node: n1, reason: replayed", mark, Duration.ofSeconds(10));
    JsonObject metrics = fleet.get("/api/v1/nodes/n1").body().getJsonObject("metrics");
    assertNotEquals(99.99, metrics.getDouble("cpuPercent"));
    assertTrue(fleet.get("/api/v1/nodes/n1").body().getBoolean("online"));
  }

  /**
   * Issue 15, part 1: a member that registers consumers on the node's call and control addresses receives none of
   * the hub's calls (arguments in clear) nor its config updates: the hub's event bus delivers those only to the member
   * the node proved itself on. With the fix off ({@code -Dfleetbus.fault.noMemberPinning=true}) the hub round-robins
   * between node and impostor: the impostor reads about half the calls and answers a config update.
   */
  @Test
  void anImpostorOnTheNodesAddressesReceivesNoCallAndNoConfigUpdate() throws Exception {
    java.util.List<String> stolen = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    MessageConsumer<ToolCall> callThief = rogue.vertx().eventBus().consumer(Addresses.nodeCall("n1"), m -> {
      stolen.add("call " + m.body().tool() + " " + m.body().args().encode());
      m.reply(ToolResult.ok(m.body().callId(), "n1", new JsonObject().put("pwned", true), 1).withProof("AAAA"));
    });
    MessageConsumer<Control> controlThief = rogue.vertx().eventBus().consumer(Addresses.nodeControl("n1"), m -> {
      stolen.add("control " + m.body().type());
      m.reply(new JsonObject().put("applied", true));
    });
    callThief.completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    controlThief.completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    // calls go on until the hub's event bus has heard of the impostor's consumer: it ignores it (and says so), or —
    // the fix off — hands it a call
    java.util.List<Integer> statuses = new java.util.ArrayList<>();
    for (int i = 0; i < 300 && stolen.isEmpty() && !hub.tail(400).contains("consumer on a pinned address ignored"); i++) {
      statuses.add(fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status());
    }
    int calls = 16;
    for (int i = 0; i < calls; i++) {
      Response r = fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}");
      statuses.add(r.status());
      assertFalse(r.body().encode().contains("pwned"), r.body().encode());
    }
    String label = "l" + System.nanoTime();
    int mark = node.mark();
    Response update = fleet.post("/api/v1/nodes/n1/config", new JsonObject().put("labels",
      new JsonObject().put("rogue-test", label)).encode());
    callThief.unregister().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    controlThief.unregister().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertEquals(List.of(), stolen, "the impostor received the node's messages");
    assertTrue(statuses.stream().allMatch(st -> st == 200), "every call served by the node: " + statuses);
    assertEquals(200, update.status(), update.body().encode());
    node.awaitLine("config updated", mark, Duration.ofSeconds(10));
    assertEquals(label, fleet.get("/api/v1/nodes/n1").body().getJsonObject("labels").getString("rogue-test"));
    FaultReport.record("15.1 A rogue member registers consumers on a node's call and control addresses",
      "it receives no call and no config update; every call is served by the node",
      "0 of " + calls + " calls and 0 config updates reached it; " + calls + " × 200 from the node");
  }

  /**
   * Issue 15, part 4: heartbeats and events a rogue member publishes on the cluster reach no frontend — neither a
   * WebSocket subscriber nor a TCP bridge client (the SockJS bridge and the dashboard consume the same hub addresses).
   * The forged heartbeat claims 99.99 % CPU, the forged event says the node went offline. With the fix off
   * ({@code -Dfleetbus.fault.rawFactsToFrontends=true}) both arrive at both clients.
   */
  @Test
  void forgedHeartbeatsAndEventsReachNoFrontend() throws Exception {
    String bearer = fleet.token();
    JsonObject auth = new JsonObject().put("Authorization", "Bearer " + bearer);
    try (WsTestClient ws = WsTestClient.connect(fleet.clientVertx(), fleet, bearer, 0);
         TcpBridgeClient tcp = new TcpBridgeClient(tcpPort)) {
      ws.send(new JsonObject().put("type", "subscribe").put("topic", "heartbeats"));
      ws.await(m -> "subscribed".equals(m.getString("type")) && "heartbeats".equals(m.getString("topic")), Duration.ofSeconds(10));
      ws.send(new JsonObject().put("type", "subscribe").put("topic", "nodes"));
      ws.await(m -> "subscribed".equals(m.getString("type")) && "nodes".equals(m.getString("topic")), Duration.ofSeconds(10));
      tcp.write(new JsonObject().put("type", "register").put("address", Addresses.BRIDGE_HEARTBEAT_JSON).put("headers", auth));
      tcp.write(new JsonObject().put("type", "register").put("address", Addresses.EVENTS).put("headers", auth));
      // both clients hear the node's real heartbeats first
      ws.await(m -> isBeat(m.getJsonObject("data")), Duration.ofSeconds(15));
      JsonObject realBeat = tcp.readFor(Addresses.BRIDGE_HEARTBEAT_JSON).getJsonObject("body");
      assertEquals("n1", realBeat.getString("nodeId"));

      Metrics fake = new Metrics(99.99, 1, 1, 1, 1, 9.99, null);
      rogue.vertx().eventBus().publish(Addresses.HEARTBEAT, new Heartbeat("n1", realBeat.getString("instanceId"),
        realBeat.getLong("seq", 0L) + 5000, System.currentTimeMillis(), fake, "forged"));
      rogue.vertx().eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "node.offline").put("nodeId", "n1")
        .put("reason", "rogue says so"));
      rogue.vertx().eventBus().publish(Addresses.BRIDGE_HEARTBEAT_JSON, new JsonObject().put("nodeId", "n1")
        .put("metrics", new JsonObject().put("cpuPercent", 99.99)));
      // three more real beats (1 s apart) after the forgeries were sent: had they been relayed, they came first
      java.util.List<JsonObject> tcpSeen = new java.util.ArrayList<>();
      int real = 0;
      while (real < 3) {
        JsonObject f = tcp.read();
        tcpSeen.add(f);
        if (Addresses.BRIDGE_HEARTBEAT_JSON.equals(f.getString("address"))
          && f.getJsonObject("body").getJsonObject("metrics").getDouble("cpuPercent") != 99.99) {
          real++;
        }
      }
      for (int i = 0; i < 3; i++) {
        ws.await(m -> isBeat(m.getJsonObject("data")) && m.getJsonObject("data").getJsonObject("metrics")
          .getDouble("cpuPercent") != 99.99, Duration.ofSeconds(15));
      }
      String wsText = ws.skipped().toString();
      String tcpText = tcpSeen.toString();
      assertFalse(wsText.contains("99.99") || wsText.contains("rogue says so"), "WebSocket heard a forgery: " + wsText);
      assertFalse(tcpText.contains("99.99") || tcpText.contains("rogue says so"), "TCP bridge heard a forgery: " + tcpText);
      hub.awaitLine("unverified message dropped \\[address: fleet.heartbeat, type: heartbeat, node: n1", Duration.ofSeconds(5));
      hub.awaitLine("unverified message dropped \\[address: fleet.events, type: node.offline, node: n1", Duration.ofSeconds(5));
      assertTrue(fleet.get("/api/v1/nodes/n1").body().getBoolean("online"));
      FaultReport.record("15.4 A rogue member publishes a heartbeat (99.99 % CPU), a node.offline event and a bridge heartbeat",
        "no WebSocket or TCP bridge client hears any of them; the node stays online",
        "0 forgeries among " + tcpSeen.size() + " TCP bridge frames and the WebSocket's messages; dropped at the hub");
    }
  }

  /**
   * Issue 20: when an edge node's link closes, the hub that held it tells the fleet at once ({@code node.link_lost} on
   * fleet.events, with the fleet's hub proof) and every hub takes the node offline. A rogue member publishing that
   * notice — here for n1, naming n1's real member, as a hub would — takes nothing offline: it carries no hub proof and
   * is dropped before the monitor hears it. With the check off ({@code -Dfleetbus.fault.rawFactsToFrontends=true}) n1
   * goes offline (reason link_lost) and this test fails.
   */
  @Test
  void aForgedLinkLossTakesNoNodeOffline() throws Exception {
    String n1Member = fleet.get("/api/v1/cluster").body().getJsonArray("members").stream().map(JsonObject.class::cast)
      .filter(m -> m.getJsonArray("nodes", new JsonArray()).contains("n1")).findFirst().orElseThrow()
      .getString("member");
    assertTrue(fleet.get("/api/v1/nodes/n1").body().getBoolean("online"));
    int mark = hub.mark();
    rogue.vertx().eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", MonitorService.LINK_LOST)
      .put("nodeId", "n1").put("member", n1Member).put("reason", "rogue says so").put("at", System.currentTimeMillis()));
    FleetProcess.Line heard = hub.awaitLine("unverified message dropped \\[address: fleet.events, type: "
      + MonitorService.LINK_LOST + ", node: n1|node offline \\[node: n1", mark, Duration.ofSeconds(10));
    assertFalse(heard.contains("node offline"), "a rogue's link-loss notice took n1 offline: " + heard.text());
    assertTrue(fleet.get("/api/v1/nodes/n1").body().getBoolean("online"));
    assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status());
    FaultReport.record("20. A rogue member publishes a hub's link-loss notice (node.link_lost) for a node, naming its member",
      "dropped without the fleet's hub proof; the node stays online", "dropped at the hub; n1 online, its calls served");
  }

  private static boolean isBeat(JsonObject data) {
    return data != null && "n1".equals(data.getString("nodeId")) && data.getJsonObject("metrics") != null;
  }

  /**
   * Issue 15, part 5: a member that is neither a hub of this fleet nor a proven node's is reported within 10 s of
   * joining (WARN, /metrics, GET /api/v1/cluster, the dashboard's banner). Switch: {@code -Dfleetbus.fault.noIntruderWatch=true}.
   */
  @Test
  void theRogueIsReportedAsAnIntruderWithinTenSeconds() throws Exception {
    var line = hub.awaitLine("intruder in the cluster: .*\\[member: " + rogue.memberId(), Duration.ofSeconds(30));
    // the log line's own time (HH:mm:ss.SSS, local): this test may run long after the line was printed
    long day = 24L * 3600 * 1000;
    long reportedAfter = Math.floorMod(java.time.LocalTime.parse(line.text().substring(0, 12)).toNanoOfDay() / 1_000_000
      - java.time.LocalTime.ofInstant(java.time.Instant.ofEpochMilli(rogueJoinedAt), java.time.ZoneId.systemDefault())
        .toNanoOfDay() / 1_000_000, day);
    assertTrue(reportedAfter <= 12_000, "reported " + reportedAfter + " ms after the rogue joined: " + line.text());
    JsonObject view = fleet.get("/api/v1/cluster").body();
    java.util.Map<String, JsonObject> byMember = new java.util.HashMap<>();
    view.getJsonArray("members").forEach(m -> byMember.put(((JsonObject) m).getString("member"), (JsonObject) m));
    JsonObject intruder = byMember.get(rogue.memberId());
    assertEquals("unknown", intruder.getString("role"), view.encode());
    assertTrue(intruder.getBoolean("intruder"), view.encode());
    assertTrue(view.getInteger("intruders") >= 1, view.encode());
    assertTrue(byMember.values().stream().anyMatch(m -> "hub".equals(m.getString("role"))
      && m.getBoolean("self") && view.getString("fleetId").equals(m.getString("fleetId"))), view.encode());
    assertTrue(byMember.values().stream().anyMatch(m -> "node".equals(m.getString("role"))
      && m.getJsonArray("nodes").contains("n1") && !m.getBoolean("intruder")), view.encode());
    assertEquals(403, fleet.sendTo(fleet.httpPort, "GET", "/api/v1/cluster", null, fleet.approverToken()).status(),
      "admins only");
    FaultReport.record("15.5 A cluster member that is neither a hub of this fleet nor a proven node's",
      "reported within 10 s (WARN, GET /api/v1/cluster, dashboard banner); never selected",
      "reported " + reportedAfter + " ms after it joined; listed as role unknown, intruder");
  }

  /**
   * Issue 15, part 2 (streams): a rogue that finds a call's stream address (it is in the cluster's registry) and sends
   * chunks there reaches no caller; only the node's proved chunks for that call are relayed. Switch:
   * {@code -Dfleetbus.fault.rawFactsToFrontends=true} (the same check).
   */
  @Test
  void chunksInjectedIntoACallersStreamReachNoCaller() throws Exception {
    try (WsTestClient ws = WsTestClient.connect(fleet.clientVertx(), fleet, fleet.token(), 0)) {
      // tier 3: the call waits for a person while its stream is open — the window the rogue uses
      ws.send(new JsonObject().put("type", "call").put("id", "c-stream").put("node", "n1").put("tool", "run_command")
        .put("args", new JsonObject().put("command", "echo real")).put("stream", true));
      JsonObject parked = ws.await(m -> "approval_required".equals(m.getString("type")), Duration.ofSeconds(15));
      String callId = parked.getString("callId");
      StreamChunk forged = new StreamChunk(callId, 1, "stdout", "INJECTED: your session expired, re-login at http://evil.example", false);
      rogue.vertx().eventBus().send(Addresses.callStream(callId), forged);
      rogue.vertx().eventBus().publish(Addresses.callStream(callId), forged);
      // the hub's verdict on the forgery is the sync point: only then is the call ended
      hub.awaitLine("unverified message dropped \\[address: " + java.util.regex.Pattern.quote(Addresses.callStream(callId))
        + ", type: chunk", Duration.ofSeconds(10));
      Response denied = fleet.sendTo(fleet.httpPort, "POST", "/api/v1/approvals/" + parked.getString("approvalId") + "/deny",
        "{\"reason\": \"test\"}", fleet.approverToken());
      assertEquals(200, denied.status(), denied.body().encode());
      ws.await(m -> "c-stream".equals(m.getString("id")) && ("error".equals(m.getString("type"))
        || "result".equals(m.getString("type"))), Duration.ofSeconds(15));
      String heard = ws.skipped().toString();
      assertFalse(heard.contains("INJECTED"), "a rogue chunk reached the caller: " + heard);
      FaultReport.record("15.2 A rogue sends stdout chunks to a caller's stream address (found in the cluster registry)",
        "no caller hears them; only the node's proved chunks are relayed", "dropped at the hub; the WebSocket heard none");
    }
  }

  @Test
  void sharedMapsHoldOnlySealedValues() throws Exception {
    String marker = "rogue-visible-" + System.nanoTime();
    TestFleet.Response parked = fleet.post("/api/v1/nodes/n1/tools/run_command",
      new JsonObject().put("command", "echo " + marker).encode());
    assertEquals(202, parked.status(), parked.body().encode());
    assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status());
    int seen = 0;
    for (String map : List.of("fleetbus.approvals", "fleetbus.calls", "fleetbus.calls.open", "fleetbus.credentials",
      "fleetbus.nodes", "fleetbus.enrollments")) {
      for (Object value : rogue.readMap(map).values()) {
        seen++;
        String text = String.valueOf(value);
        // sealed values are base64url: no JSON punctuation, no readable argument
        assertFalse(text.contains(marker) || text.contains("{") || text.contains("\""),
          map + " holds a readable value: " + text);
      }
    }
    assertTrue(seen >= 5, "the rogue reads the maps, and finds only ciphertext (" + seen + " values)");
  }
}
