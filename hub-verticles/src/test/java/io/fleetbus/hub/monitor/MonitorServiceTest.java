package io.fleetbus.hub.monitor;

import static io.fleetbus.hub.TestFutures.await;
import static io.fleetbus.hub.TestFutures.failureOf;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fleetbus.hub.enrollment.NodeCredential;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.LocalCodec;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** The heartbeat monitor through its typed client: who is online, and what takes a node offline. */
@ExtendWith(VertxExtension.class)
@Timeout(value = 5, unit = TimeUnit.SECONDS)
class MonitorServiceTest {
  private static final byte[] KEY = NodeProofs.keyOf("fbc_monitor-test-credential");
  private final BlockingQueue<JsonObject> flips = new LinkedBlockingQueue<>();
  private MonitorService monitor;

  @BeforeEach
  void deploy(Vertx vertx, VertxTestContext ctx) {
    LocalCodec.register(vertx, NodeCredential.class);
    // the registry's side of liveness: every online/offline flip the monitor decides
    vertx.eventBus().<Object>localConsumer(Addresses.HUB_LIVENESS, m -> {
      if (m.body() instanceof JsonObject flip) {
        flips.add(flip);
      }
    });
    monitor = MonitorBus.client(vertx);
    vertx.deployVerticle(new HeartbeatMonitorVerticle(2), new DeploymentOptions().setConfig(new JsonObject().put("sweepMs", 100)))
      .onComplete(ctx.succeedingThenComplete());
  }

  private JsonObject nextFlip() throws InterruptedException {
    JsonObject flip = flips.poll(2, TimeUnit.SECONDS);
    if (flip == null) {
      throw new AssertionError("the monitor flipped no node within 2 s");
    }
    return flip;
  }

  private void assertFlip(String nodeId, boolean online, String reason) throws InterruptedException {
    JsonObject flip = nextFlip();
    assertEquals(nodeId, flip.getString("nodeId"), flip.encode());
    assertEquals(online, flip.getBoolean("online"), flip.encode());
    assertEquals(reason, flip.getString("reason"), flip.encode());
  }

  /** What the monitor tells the router: a node's calls in flight end. */
  private static BlockingQueue<JsonObject> nodeGoneNotices(Vertx vertx) throws Exception {
    BlockingQueue<JsonObject> gone = new LinkedBlockingQueue<>();
    await(vertx.eventBus().<JsonObject>localConsumer(Addresses.HUB_NODE_GONE, m -> gone.add(m.body())).completion());
    return gone;
  }

  private static Tracking tracking(String nodeId, long intervalMs) {
    return new Tracking(nodeId, "i1", "member-" + nodeId, intervalMs, false);
  }

  @Test
  void aTrackedNodeIsOnlineWithItsHelloAndOfflineAfterMissedHeartbeats(Vertx vertx) throws Exception {
    await(monitor.track(tracking("n1", 50)));
    assertFlip("n1", true, "hello");
    assertFlip("n1", false, "missed_heartbeats");
  }

  @Test
  void aMemberLeavingTakesItsNodesOffline(Vertx vertx) throws Exception {
    await(monitor.track(tracking("n1", 60_000)));
    await(monitor.track(tracking("n2", 60_000)));
    assertFlip("n1", true, "hello");
    assertFlip("n2", true, "hello");
    await(monitor.memberLeft("member-n2"));
    assertFlip("n2", false, "member_left");
  }

  /**
   * An edge node relinked to another hub (its hello through another member) may be heard before the old member's
   * leaving: the router still ends what it sent through the old member (node gone), and the node stays online.
   */
  @Test
  void aNodeNowThroughAnotherMemberEndsItsCallsThroughTheOldOne(Vertx vertx) throws Exception {
    BlockingQueue<JsonObject> gone = nodeGoneNotices(vertx);
    await(monitor.track(tracking("n1", 60_000)));
    assertFlip("n1", true, "hello");
    await(monitor.track(tracking("n1", 60_000)));
    await(monitor.track(new Tracking("n1", "i1", "member-hub-b", 60_000, false)));
    JsonObject told = gone.poll(2, TimeUnit.SECONDS);
    assertEquals(new JsonObject().put("nodeId", "n1").put("reason", "member_changed"), told);
    assertEquals(null, gone.poll(), "one notice: the same member again is no change");
    await(monitor.memberLeft("member-n1"));
    assertEquals(null, flips.poll(200, TimeUnit.MILLISECONDS), "the old member leaving later takes it offline no more");
  }

  private static JsonObject linkLost(String nodeId, String member) {
    return new JsonObject().put("type", MonitorService.LINK_LOST).put("nodeId", nodeId).put("member", member)
      .put("reason", "closed by edge /10.0.0.7:50111").put("at", System.currentTimeMillis());
  }

  /**
   * An edge node's link closed on the member that held it (a hub's notice on fleet.events): offline at once, long
   * before its missed heartbeats, and what was sent through that link ends (node gone); a late heartbeat does not bring
   * it back, only a hello does.
   */
  @Test
  void aLostLinkTakesItsNodeOfflineAtOnceAndEndsItsCalls(Vertx vertx) throws Exception {
    BlockingQueue<JsonObject> gone = nodeGoneNotices(vertx);
    vertx.eventBus().publish(Addresses.HUB_NODE_KEYS, new NodeCredential("n1", KEY, null, 0, 1, 1),
      new DeliveryOptions().setLocalOnly(true));
    await(monitor.track(tracking("n1", 60_000)));
    assertFlip("n1", true, "hello");
    vertx.eventBus().publish(Addresses.EVENTS, linkLost("n1", "member-n1"));
    assertFlip("n1", false, "link_lost");
    assertEquals(new JsonObject().put("nodeId", "n1").put("reason", "link_lost"), gone.poll(2, TimeUnit.SECONDS));
    Codecs.register(vertx);
    Heartbeat late = new Heartbeat("n1", "i1", 1, System.currentTimeMillis(), null, null);
    vertx.eventBus().publish(Addresses.HEARTBEAT, late.withProof(NodeProofs.prove(KEY, NodeProofs.HEARTBEAT,
      NodeProofs.without(late.toJson(), "proof"))));
    assertEquals(null, flips.poll(300, TimeUnit.MILLISECONDS), "a heartbeat still on its way does not bring it back");
    await(monitor.track(tracking("n1", 60_000)));
    assertFlip("n1", true, "hello");
  }

  /**
   * The node said hello through another hub before the first hub's notice of its old link arrived (it relinked): that
   * notice names a member the node is no longer tracked on, and changes nothing. A node's own event of the same type
   * (it carries the node's proof: relayed for the node, not a hub's word) changes nothing either.
   */
  @Test
  void aLostLinkOfAMemberTheNodeLeftOrInTheNodesOwnWordsChangesNothing(Vertx vertx) throws Exception {
    BlockingQueue<JsonObject> gone = nodeGoneNotices(vertx);
    await(monitor.track(tracking("n1", 60_000)));
    assertFlip("n1", true, "hello");
    await(monitor.track(new Tracking("n1", "i1", "member-hub-b", 60_000, false)));
    assertEquals("member_changed", gone.poll(2, TimeUnit.SECONDS).getString("reason"));
    vertx.eventBus().publish(Addresses.EVENTS, linkLost("n1", "member-n1"));
    JsonObject own = linkLost("n1", "member-hub-b");
    vertx.eventBus().publish(Addresses.EVENTS, own.put("proof", NodeProofs.prove(KEY, NodeProofs.EVENT, own)));
    assertEquals(null, flips.poll(300, TimeUnit.MILLISECONDS), "relinked through hub b: still online");
    assertEquals(null, gone.poll(), "and nothing of it ended");
  }

  @Test
  void aRevokedNodeIsOfflineAtOnce(Vertx vertx) throws Exception {
    await(monitor.track(tracking("n1", 60_000)));
    assertFlip("n1", true, "hello");
    await(monitor.forget("n1"));
    assertFlip("n1", false, "revoked");
  }

  @Test
  void onlyAGoodbyeThatProvesTheCredentialTakesTheNodeOffline(Vertx vertx) throws Exception {
    vertx.eventBus().publish(Addresses.HUB_NODE_KEYS, new NodeCredential("n1", KEY, null, 0, 1, 1),
      new DeliveryOptions().setLocalOnly(true));
    await(monitor.track(tracking("n1", 60_000)));
    assertFlip("n1", true, "hello");
    JsonObject goodbye = new JsonObject().put("nodeId", "n1").put("instanceId", "i1");
    JsonObject forged = goodbye.copy().put("proof", NodeProofs.prove("another key".getBytes(StandardCharsets.UTF_8),
      NodeProofs.GOODBYE, goodbye));
    Throwable refused = failureOf(monitor.goodbye("n1", forged));
    assertEquals(FailureCode.UNAUTHORIZED, FailureCode.of(refused), refused.getMessage());
    await(monitor.goodbye("n1", goodbye.copy().put("proof", NodeProofs.prove(KEY, NodeProofs.GOODBYE, goodbye))));
    assertFlip("n1", false, "disconnected");
  }

  @Test
  void trackingWithoutAnInstanceIsABadRequest(Vertx vertx) throws Exception {
    Throwable refused = failureOf(monitor.track(new Tracking("n1", null, "m", 1000, false)));
    assertEquals(FailureCode.BAD_REQUEST, FailureCode.of(refused), refused.getMessage());
  }
}
