package io.fleetbus.hub.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.api.CallStream;
import io.fleetbus.hub.authz.FeedListener.Kind;
import io.fleetbus.hub.enrollment.CallTargets;
import io.fleetbus.hub.enrollment.NodeCredential;
import io.fleetbus.hub.fuzz.InProcessHub;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.fleetbus.shared.msg.StreamChunk;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 32, item 4, against a hub on a real Hazelcast cluster (two members in this JVM): a member holding a
 * compromised node's credential ("evil") proves, with that credential, events about approvals, calls and itself as a
 * node, and output chunks for a call the hub sent to another node ("n2"). None reaches a frontend — the WebSocket API,
 * the SockJS and TCP bridges, get_site_logs (MCP and REST), a call's stream — while its own process event does; with
 * {@code -Dfleetbus.fault.unboundFacts=true} they all do. And what the hub announces reaches the member sealed: ids,
 * tools and sizes, no user names, outcomes or decisions ({@code clearHubEvents} shows them in clear).
 */
@Timeout(180)
class CompromisedNodeTest {
  private static final byte[] EVIL = Digests.randomBytes(32);
  private static final byte[] N2 = Digests.randomBytes(32);
  private static ClusterLauncher.Member hubMember;
  private static ClusterLauncher.Member rogue;
  private static InProcessHub hub;

  @BeforeAll
  static void hubAndCompromisedMember() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    JsonObject cluster = new JsonObject().put("name", "fleetbus-compromised-" + UUID.randomUUID()).put("host", "127.0.0.1")
      .put("members", "127.0.0.1:" + port)
      .put("config", Path.of("..", "cluster.xml").toAbsolutePath().normalize().toString());
    hubMember = await(ClusterLauncher.start(new JsonObject().put("cluster", cluster.copy().put("port", port)), false));
    hub = InProcessHub.onCluster(hubMember.vertx());
    for (NodeCredential c : List.of(credential("evil", EVIL), credential("n2", N2))) {
      hub.vertx.eventBus().publish(Addresses.HUB_NODE_KEYS, c, new DeliveryOptions().setLocalOnly(true));
    }
    awaitCondition(() -> hub.assembly.keyring().knows("evil") && hub.assembly.keyring().knows("n2"));
    int roguePort;
    try (ServerSocket s = new ServerSocket(0)) {
      roguePort = s.getLocalPort();
    }
    rogue = await(ClusterLauncher.start(new JsonObject().put("cluster", cluster.copy().put("port", roguePort)), true));
  }

  @AfterAll
  static void stop() throws Exception {
    if (rogue != null) {
      await(rogue.vertx().close());
    }
    if (hub != null) {
      hub.close();
    }
  }

  private static NodeCredential credential(String nodeId, byte[] key) {
    long now = System.currentTimeMillis();
    return new NodeCredential(nodeId, key, null, 0, now, now);
  }

  /** An event as node "evil" proves it (the credential a compromised node's member holds). */
  private static JsonObject proven(JsonObject event) {
    return event.copy().put("proof", NodeProofs.prove(EVIL, NodeProofs.EVENT, event));
  }

  /** What evil says: about approvals, calls and itself as a node — each holding {@code run}. */
  private static List<JsonObject> forgeries(String run) {
    return List.of(
      new JsonObject().put("type", "approval.requested").put("approvalId", run + "-a1").put("callId", run + "-c0")
        .put("nodeId", "evil").put("tool", "run_command").put("requester", "adam"),
      new JsonObject().put("type", "approval.decided").put("approvalId", run + "-a2").put("callId", run + "-c0")
        .put("nodeId", "evil").put("status", "approved").put("decidedBy", "ann").put("requester", "adam"),
      new JsonObject().put("type", "call.finished").put("callId", run + "-c1").put("nodeId", "evil")
        .put("principal", "adam").put("status", "ok"),
      new JsonObject().put("type", "node.offline").put("nodeId", "evil").put("reason", run + "-n1"),
      new JsonObject().put("type", "node.config_updated").put("nodeId", "evil").put("reason", run + "-n2"));
  }

  /** evil's own process event (a fact it may state), with {@code marker}. */
  private static JsonObject ownFact(String marker) {
    return proven(new JsonObject().put("type", "process.crashed").put("nodeId", "evil").put("name", marker));
  }

  /** For each frontend, which of evil's forged events it heard (after the attack's last, own, event arrived). */
  private static List<String> eventsHeard(String run) throws Exception {
    HubClient client = new HubClient(hub);
    String admin = hub.token("adam", "admin");
    List<FeedListener> listeners = new ArrayList<>();
    List<String> heard = new ArrayList<>();
    try {
      for (Kind kind : Kind.values()) {
        listeners.add(FeedListener.open(kind, hub, client, "admin", admin));
      }
      hearAll(listeners, run + "-ready");
      // until the member knows the hub's consumers: evil's own event, repeated until a bridge client hears it
      FeedListener tcp = listeners.get(Kind.TCP.ordinal());
      String reached = run + "-reached";
      while (!tcp.await(reached, 100)) {
        rogue.vertx().eventBus().publish(Addresses.EVENTS, ownFact(reached));
      }
      forgeries(run).forEach(f -> rogue.vertx().eventBus().publish(Addresses.EVENTS, proven(f)));
      String last = run + "-last";
      rogue.vertx().eventBus().publish(Addresses.EVENTS, ownFact(last));
      for (FeedListener l : listeners) {
        // the WebSocket API has no topic for process events: it hears a node event the hub sends after them
        assertTrue(l.kind == Kind.WEBSOCKET || l.await(last, 20_000), l + " did not hear evil's own process event");
      }
      hearAll(listeners, run + "-after");
      for (FeedListener l : listeners) {
        for (JsonObject f : forgeries(run)) {
          String marker = f.getString("approvalId", f.getString("callId", f.getString("reason")));
          if (l.heard("\"" + marker + "\"")) {
            heard.add(l.kind + " " + f.getString("type"));
          }
        }
      }
      for (String via : List.of("rest", "mcp")) {
        String logs = via.equals("rest")
          ? client.rest(admin, "POST", "/api/v1/tools/get_site_logs", "{\"limit\": 500}").body()
          : client.mcp(admin, "tools/call", new JsonObject().put("name", "get_site_logs")
            .put("arguments", new JsonObject().put("limit", 500))).body();
        assertTrue(logs.contains(last), via + " get_site_logs lacks evil's own event: " + logs);
        forgeries(run).stream().filter(f -> logs.contains(f.getString("approvalId", f.getString("callId",
          f.getString("reason"))))).forEach(f -> heard.add("get_site_logs (" + via + ") " + f.getString("type")));
      }
    } finally {
      for (FeedListener l : listeners) {
        l.close();
      }
    }
    return heard;
  }

  /** The hub announces a node event (its own word) until every listener heard it. */
  private static void hearAll(List<FeedListener> listeners, String nodeId) throws Exception {
    for (FeedListener l : listeners) {
      while (!l.await(nodeId, 100)) {
        hub.vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "node.online").put("nodeId", nodeId));
      }
    }
  }

  @Test
  void aCompromisedNodesEventsAboutApprovalsCallsAndNodesReachNoFrontend() throws Exception {
    assertEquals(List.of(), eventsHeard("bound-" + UUID.randomUUID()), "forged events that reached a frontend");
    try (FaultSwitches.Restore off = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.UNBOUND_FACTS))) {
      List<String> heard = eventsHeard("unbound-" + UUID.randomUUID());
      for (String feed : List.of("WEBSOCKET approval.requested", "WEBSOCKET node.offline", "SOCKJS call.finished",
        "TCP approval.decided", "TCP node.offline", "get_site_logs (mcp) approval.requested")) {
        assertTrue(heard.contains(feed), "with the check off, evil's word reaches " + feed + ": " + heard);
      }
    }
  }

  /** What a caller streaming call {@code callId} (sent to n2) receives when evil and then n2 send it output. */
  private static List<String> chunksReceived(String callId) throws Exception {
    List<String> got = new CopyOnWriteArrayList<>();
    Promise<Void> real = Promise.promise();
    CallTargets.sent(hub.vertx, callId, "n2");
    CallStream stream = CallStream.listen(hub.vertx, callId, hub.assembly.keyring(), c -> {
      got.add(c.data());
      if (c.data().startsWith("real")) {
        real.tryComplete();
      }
    });
    await(stream.ready());
    String address = Addresses.callStream(callId);
    // the member learns the caller's consumer asynchronously: n2's chunk, repeated until it arrives, comes first
    for (int seq = 1; !real.future().isComplete(); seq++) {
      send(N2, "n2", new StreamChunk(callId, seq, "stdout", "real " + seq, false));
      awaitOrNot(real.future(), 100);
    }
    send(EVIL, "evil", new StreamChunk(callId, 1000, "stdout", "forged: re-login at http://evil.example", false));
    // one connection, one consumer: evil's chunk is checked (and delivered or not) before n2's last one
    send(N2, "n2", new StreamChunk(callId, 2000, "stdout", "real last", false));
    awaitCondition(() -> got.stream().anyMatch(d -> d.equals("real last")));
    stream.close();
    return got;
  }

  private static void send(byte[] key, String node, StreamChunk chunk) {
    rogue.vertx().eventBus().send(Addresses.callStream(chunk.callId()), chunk, new DeliveryOptions()
      .addHeader(NodeProofs.NODE_HEADER, node).addHeader(NodeProofs.PROOF_HEADER,
        NodeProofs.prove(key, NodeProofs.CHUNK, chunk.toJson())));
  }

  @Test
  void aCompromisedNodesChunksForAnotherNodesCallReachNoCaller() throws Exception {
    List<String> bound = chunksReceived("c-" + UUID.randomUUID());
    assertFalse(bound.stream().anyMatch(d -> d.contains("evil.example")), "evil's output reached the caller: " + bound);
    try (FaultSwitches.Restore off = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.UNBOUND_FACTS))) {
      List<String> unbound = chunksReceived("c-" + UUID.randomUUID());
      assertTrue(unbound.stream().anyMatch(d -> d.contains("evil.example")),
        "with the check off, evil's chunk reaches the caller of n2's call: " + unbound);
    }
  }

  /** What a member hears of one approval decision the hub announces (bob's call, denied by ann). */
  private static List<String> overheard(String run) throws Exception {
    List<String> heard = new CopyOnWriteArrayList<>();
    Promise<Void> first = Promise.promise();
    io.vertx.core.Handler<io.vertx.core.eventbus.Message<Object>> spy = m -> {
      heard.add(String.valueOf(m.body()));
      if (String.valueOf(m.body()).contains(run + "-call")) {
        first.tryComplete();
      }
    };
    var a = rogue.vertx().eventBus().consumer(Addresses.EVENTS, spy);
    var b = rogue.vertx().eventBus().consumer(Addresses.PEER_EVENTS, spy);
    await(a.completion());
    await(b.completion());
    FeedListener admin = FeedListener.open(Kind.TCP, hub, new HubClient(hub), "admin", hub.token("adam", "admin"));
    try {
      hearAll(List.of(admin), run + "-ready");
      // the hub learns the member's consumers asynchronously: announce until the member heard one
      for (int i = 0; !first.future().isComplete(); i++) {
        hub.vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.decided")
          .put("approvalId", run + "-" + i).put("callId", run + "-call").put("tool", "run_command")
          .put("requester", "bob-" + run).put("decidedBy", "ann-" + run).put("status", "denied-" + run));
        awaitOrNot(first.future(), 100);
      }
      assertTrue(admin.await("bob-" + run, 20_000), "the hub's own listener hears the full event");
    } finally {
      admin.close();
      a.unregister();
      b.unregister();
    }
    return heard;
  }

  @Test
  void aMemberHearsOnlyIdsToolsAndSizesOfTheHubsEvents() throws Exception {
    String run = "r" + UUID.randomUUID().toString().substring(0, 8);
    List<String> heard = overheard(run);
    assertTrue(heard.stream().allMatch(h -> h.contains("\"sealed\"")), "all sealed: " + heard);
    assertTrue(heard.stream().anyMatch(h -> h.contains(run + "-0") && h.contains("run_command")),
      "the member hears the decision's ids and tool: " + heard);
    assertFalse(heard.stream().anyMatch(h -> h.contains("bob-") || h.contains("ann-") || h.contains("denied-")),
      "the member heard a user name or a decision: " + heard);
    try (FaultSwitches.Restore off = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.CLEAR_HUB_EVENTS))) {
      String clear = "r" + UUID.randomUUID().toString().substring(0, 8);
      assertTrue(overheard(clear).stream().anyMatch(h -> h.contains("bob-" + clear) && h.contains("denied-" + clear)),
        "with the switch on the member hears who asked and the decision");
    }
  }

  private static void awaitOrNot(Future<?> f, long ms) throws Exception {
    try {
      f.toCompletionStage().toCompletableFuture().get(ms, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      // not yet: the caller tries again
    }
  }

  private static void awaitCondition(java.util.function.BooleanSupplier done) throws Exception {
    Vertx v = hub == null ? hubMember.vertx() : hub.vertx;
    Promise<Void> p = Promise.promise();
    long timer = v.setPeriodic(10, t -> {
      if (done.getAsBoolean()) {
        p.tryComplete();
      }
    });
    try {
      await(p.future());
    } finally {
      v.cancelTimer(timer);
    }
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
