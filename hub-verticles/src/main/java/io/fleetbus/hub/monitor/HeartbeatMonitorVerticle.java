package io.fleetbus.hub.monitor;

import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether nodes are alive. Takes in heartbeats (dropping those of untracked nodes or stale
 * processes), marks a node offline after N silent intervals, on a goodbye, when its cluster member
 * leaves or when the edge link it was reached through closes (the router then fails that node's calls in flight at
 * once), and is the one place that publishes node online/offline on {@code fleet.events} and tells the registry.
 */
public final class HeartbeatMonitorVerticle extends VerticleBase implements MonitorService {
  private static final Logger LOG = LoggerFactory.getLogger(HeartbeatMonitorVerticle.class);

  /** A heartbeat older than this is a replay (or the node's clock is far off): either way it proves nothing now. */
  private static final long MAX_HEARTBEAT_AGE_MS = 120_000;

  private final int missedIntervals;
  private final Map<String, Tracked> tracked = new HashMap<>();
  private final NodeKeyring keyring = new NodeKeyring();
  // read by the metrics scrape on another thread
  private final LongAdder received = new LongAdder();
  private final LongAdder dropped = new LongAdder();
  /** Heartbeats and goodbyes whose proof did not verify: forged, replayed, or from a revoked credential. */
  private long unverified;
  private final Map<String, Long> lastWarned = new HashMap<>();
  private final java.util.Set<String> revoked = new java.util.HashSet<>();

  private static final class Tracked {
    final String instanceId;
    final String memberId;
    long intervalMs;
    long lastSeen;
    long lastSeq;
    boolean online;
    /**
     * Its cluster member left, or the edge link its member held closed: it cannot receive calls until it says hello
     * again.
     */
    boolean memberGone;

    Tracked(String instanceId, String memberId, long intervalMs, long lastSeen) {
      this.instanceId = instanceId;
      this.memberId = memberId;
      this.intervalMs = intervalMs;
      this.lastSeen = lastSeen;
    }
  }

  public HeartbeatMonitorVerticle(int missedIntervals) {
    this.missedIntervals = missedIntervals;
  }

  @Override
  public Future<?> start() {
    long sweepMs = Math.max(100, config().getLong("sweepMs", 250L));
    vertx.setPeriodic(sweepMs, t -> sweep());
    var bus = vertx.eventBus();
    return Future.all(
      keyring.follow(vertx),
      bus.<Heartbeat>consumer(Addresses.HEARTBEAT, this::onHeartbeat).completion(),
      // clustered: every hub's link-loss notices (a hub's own publish reaches it here too)
      bus.<Object>consumer(Addresses.EVENTS, this::onEvent).completion(),
      MonitorBus.serve(vertx, this));
  }

  /**
   * A hub's notice that a proven edge link closed ({@link MonitorService#LINK_LOST}). It counts only as a hub's word:
   * from the cluster, an event without a node's proof reaches this handler only with the fleet's hub proof
   * ({@code enrollment.VerifiedFacts}), and one a node proved itself (its own events, relayed) is not a hub's notice.
   */
  private void onEvent(Message<Object> msg) {
    if (msg.body() instanceof JsonObject event && MonitorService.LINK_LOST.equals(event.getString("type"))
      && !event.containsKey("proof")) {
      linkLost(event.getString("nodeId"), event.getString("member"));
    }
  }

  /**
   * The edge link of {@code nodeId} held by cluster member {@code memberId} closed (and no newer link of the node
   * replaced it there): offline at once and its calls in flight end, as when a member leaves — unless the node is
   * tracked on another member by now (it said hello through another hub: that link is the one that counts).
   */
  private void linkLost(String nodeId, String memberId) {
    Tracked t = nodeId == null ? null : tracked.get(nodeId);
    if (t == null || memberId == null) {
      return;
    }
    if (!memberId.equals(t.memberId)) {
      LOG.info("edge link loss changes nothing [node: {}, member: {}, reason: the node is now through member {}]", nodeId,
        memberId, t.memberId);
      return;
    }
    t.memberGone = true;
    if (t.online) {
      flip(nodeId, t, false, "link_lost", System.currentTimeMillis());
    }
    vertx.eventBus().publish(Addresses.HUB_NODE_GONE, new JsonObject().put("nodeId", nodeId).put("reason", "link_lost"),
      new DeliveryOptions().setLocalOnly(true));
  }

  private void onHeartbeat(Message<Heartbeat> msg) {
    Heartbeat hb = msg.body();
    Tracked t = hb == null || hb.nodeId() == null ? null : tracked.get(hb.nodeId());
    if (t == null && revoked.contains(hb.nodeId())) {
      refuse(hb.nodeId(), "revoked", "");
      return;
    }
    if (t == null || !t.instanceId.equals(hb.instanceId())) {
      dropped.increment();
      LOG.debug("heartbeat dropped [node: {}, reason: {}]", hb == null ? null : hb.nodeId(),
        t == null ? "not registered" : "stale process");
      return;
    }
    if (!keyring.verify(hb.nodeId(), NodeProofs.HEARTBEAT, hb.toJson(), hb.proof())) {
      refuse(hb.nodeId(), "proof does not verify", "");
      return;
    }
    if (Math.abs(System.currentTimeMillis() - hb.sentAt()) > MAX_HEARTBEAT_AGE_MS) {
      refuse(hb.nodeId(), "stale", " (sent " + (System.currentTimeMillis() - hb.sentAt()) / 1000 + " s ago: replayed, or"
        + " the clocks differ)");
      return;
    }
    if (hb.seq() <= t.lastSeq) {
      refuse(hb.nodeId(), "replayed", " (seq " + hb.seq() + " after " + t.lastSeq + ")");
      return;
    }
    t.lastSeq = hb.seq();
    received.increment();
    long now = System.currentTimeMillis();
    t.lastSeen = now;
    // a node whose member left (it hung past Hazelcast's detection) still publishes, but its call address is gone
    // from the cluster until it rejoins: it is online again with that hello, not with this heartbeat
    if (!t.online && !t.memberGone) {
      flip(hb.nodeId(), t, true, "heartbeat", now);
    }
    vertx.eventBus().send(Addresses.HUB_LIVENESS, hb, new DeliveryOptions().setLocalOnly(true));
  }

  @Override
  public Future<Void> track(Tracking tracking) {
    String nodeId = tracking.nodeId();
    if (nodeId == null || tracking.instanceId() == null) {
      return Future.failedFuture(FailureCode.BAD_REQUEST.exception("tracking a node needs its nodeId and instanceId"));
    }
    long now = System.currentTimeMillis();
    Tracked previous = tracked.get(nodeId);
    Tracked t = new Tracked(tracking.instanceId(), tracking.memberId(), tracking.intervalMs(), now);
    tracked.put(nodeId, t);
    revoked.remove(nodeId);
    if (previous != null && previous.memberId != null && !previous.memberId.equals(t.memberId)) {
      LOG.info("node through another member [node: {}, member: {}, was: {}]", nodeId, t.memberId, previous.memberId);
      // the node now answers through another member (an edge node relinked to another hub, a node that rejoined the
      // cluster): what was sent through the old one will never be answered, even if that member's leaving is not heard
      // yet (an edge node's relink can beat it), so its calls in flight end now as a member that left would end them
      vertx.eventBus().publish(Addresses.HUB_NODE_GONE, new JsonObject().put("nodeId", nodeId)
        .put("reason", "member_changed"), new DeliveryOptions().setLocalOnly(true));
    }
    boolean sameProcess = previous != null && previous.instanceId.equals(t.instanceId) && previous.online;
    if (previous != null && previous.instanceId.equals(t.instanceId)) {
      t.lastSeq = previous.lastSeq;
    }
    if (sameProcess) {
      t.online = true;
    } else if (tracking.awaitHeartbeat()) {
      // just enrolled: online once its first heartbeat shows it stored its credential and can verify calls
      t.online = false;
    } else {
      flip(nodeId, t, true, "hello", now);
    }
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> heartbeatInterval(String nodeId, long intervalMs) {
    Tracked t = nodeId == null ? null : tracked.get(nodeId);
    if (t != null) {
      t.intervalMs = intervalMs;
      t.lastSeen = System.currentTimeMillis(); // the new rhythm starts now
    }
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> memberLeft(String memberId) {
    long now = System.currentTimeMillis();
    tracked.forEach((id, t) -> {
      if (memberId != null && memberId.equals(t.memberId)) {
        t.memberGone = true;
      }
      if (t.online && memberId != null && memberId.equals(t.memberId)) {
        flip(id, t, false, "member_left", now);
        vertx.eventBus().publish(Addresses.HUB_NODE_GONE, new JsonObject().put("nodeId", id).put("reason", "member_left"),
          new DeliveryOptions().setLocalOnly(true));
      }
    });
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> forget(String nodeId) {
    if (nodeId == null) {
      return Future.failedFuture(FailureCode.BAD_REQUEST.exception("forgetting a node needs its nodeId"));
    }
    revoked.add(nodeId);
    Tracked t = tracked.remove(nodeId);
    if (t != null && t.online) {
      flip(nodeId, t, false, "revoked", System.currentTimeMillis());
    }
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> goodbye(String nodeId, JsonObject goodbye) {
    if (nodeId == null || goodbye == null) {
      return Future.failedFuture(FailureCode.BAD_REQUEST.exception("a goodbye needs the nodeId and the node's goodbye"));
    }
    if (!keyring.verify(nodeId, NodeProofs.GOODBYE, goodbye, goodbye.getString("proof"))) {
      refuse(nodeId, "goodbye proof does not verify", "");
      return Future.failedFuture(FailureCode.UNAUTHORIZED.exception("the goodbye of node '" + nodeId
        + "' does not prove its credential: the node stays online"));
    }
    Tracked t = tracked.get(nodeId);
    if (t != null && t.online) {
      flip(nodeId, t, false, "disconnected", System.currentTimeMillis());
    }
    return Future.succeededFuture();
  }

  private void sweep() {
    long now = System.currentTimeMillis();
    tracked.forEach((nodeId, t) -> {
      if (t.online && now - t.lastSeen > t.intervalMs * missedIntervals) {
        flip(nodeId, t, false, "missed_heartbeats", now);
      }
    });
  }

  private void flip(String nodeId, Tracked t, boolean online, String reason, long now) {
    t.online = online;
    LOG.info("node {} [node: {}, reason: {}]", online ? "online" : "offline", nodeId, reason);
    JsonObject change = new JsonObject().put("nodeId", nodeId).put("online", online).put("reason", reason).put("at", now);
    vertx.eventBus().send(Addresses.HUB_LIVENESS, change, new DeliveryOptions().setLocalOnly(true));
    vertx.eventBus().publish(Addresses.EVENTS, change.copy().put("type", online ? "node.online" : "node.offline"));
    if (online) {
      vertx.eventBus().publish(Addresses.HUB_NODE_BACK, new JsonObject().put("nodeId", nodeId),
        new DeliveryOptions().setLocalOnly(true));
    }
  }

  /** Drops a message that claims to come from a node but does not prove it; warns at most every 10 s per node. */
  private void refuse(String nodeId, String reason, String detail) {
    dropped.increment();
    unverified++;
    long now = System.currentTimeMillis();
    Long last = lastWarned.get(nodeId + "|" + reason);
    if (last == null || now - last > 10_000) {
      lastWarned.put(nodeId + "|" + reason, now);
      LOG.warn("heartbeat dropped [node: {}, reason: {}{}, unverified: {}]", nodeId, reason, detail, unverified);
    }
  }

  /** Counters for metrics and the benchmark. */
  public JsonObject stats() {
    return new JsonObject().put("received", received.sum()).put("dropped", dropped.sum()).put("unverified", unverified)
      .put("tracked", tracked.size());
  }

  public long heartbeatsReceived() {
    return received.sum();
  }

  public long heartbeatsDropped() {
    return dropped.sum();
  }
}
