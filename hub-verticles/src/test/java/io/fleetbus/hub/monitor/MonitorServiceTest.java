package io.fleetbus.hub.monitor;

import static io.fleetbus.hub.TestFutures.await;
import static io.fleetbus.hub.TestFutures.failureOf;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fleetbus.hub.enrollment.NodeCredential;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
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
    BlockingQueue<JsonObject> gone = new LinkedBlockingQueue<>();
    await(vertx.eventBus().<JsonObject>localConsumer(Addresses.HUB_NODE_GONE, m -> gone.add(m.body())).completion());
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
