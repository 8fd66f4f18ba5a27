package io.fleetbus.hub.registry;

import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.enrollment.EnrollmentBus;
import io.fleetbus.hub.enrollment.HelloAdmission;
import io.fleetbus.hub.monitor.MonitorBus;
import io.fleetbus.hub.monitor.MonitorService;
import io.fleetbus.hub.monitor.Tracking;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.cluster.MemberPins;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetReplies;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.NodeRegistered;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns what the hub knows about nodes: answers hellos (409 for a second process with a live node's
 * id), keeps the durable table in SQLite and the live view (online, last heartbeat, metrics) in memory,
 * and answers lookups for routing and the API. State is confined to this verticle. Registrations are
 * shared with the fleet's other hubs (a Hazelcast map): a node that said hello to one hub is known to
 * all, and each judges its liveness from the heartbeats every hub receives.
 */
public final class RegistryVerticle extends VerticleBase implements RegistryService {
  private static final Logger LOG = LoggerFactory.getLogger(RegistryVerticle.class);
  /** Fault switch for tests only (-Dfleetbus.fault.onlineAtHello=true): a node that enrolls is listed online at once, as before issue 21. */
  private static final boolean ONLINE_AT_HELLO = Boolean.getBoolean("fleetbus.fault.onlineAtHello");

  private final Path dbFile;
  private final long heartbeatIntervalMs;
  private final Map<String, NodeRecord> nodes = new TreeMap<>();
  /** Heartbeat intervals set per node by config_update; others use the hub's default. */
  private final Map<String, Long> intervals = new java.util.HashMap<>();
  /** Nodes the hub's config expects (by id), shown as "never connected" until they say hello. */
  private Map<String, JsonObject> expected = Map.of();
  /** Each node's cluster member, as its hello said (shared with the other hubs so they notice it leave). */
  private final Map<String, String> memberIds = new java.util.HashMap<>();
  /** Smoothed gap between a node's heartbeats as this hub sees them, in ms. */
  private final Map<String, Long> observedGaps = new java.util.HashMap<>();
  /** Nodes whose latest heartbeat is not in the file yet: saved together every {@link #saveBeatsMs}. */
  private final java.util.Set<String> unsavedBeats = new java.util.HashSet<>();
  /** How often the last heartbeats are written (one write per node at most per interval, not one per heartbeat). */
  private final long saveBeatsMs;
  private NodeStore store;
  private final SharedRegistrations shared;
  private MonitorService monitor;

  public RegistryVerticle(Path dbFile, long heartbeatIntervalMs) {
    this(dbFile, heartbeatIntervalMs, null, DEFAULT_SAVE_BEATS_MS);
  }

  /** The default of {@code lastHeartbeatSaveMs} in the hub's conf. */
  public static final long DEFAULT_SAVE_BEATS_MS = 10_000;

  /**
   * @param saveBeatsMs how often the nodes' last heartbeat times are written to the file (also on every offline
   *                    transition and at a clean stop), so a restarted hub shows when each node was really last seen
   */
  public RegistryVerticle(Path dbFile, long heartbeatIntervalMs, FleetState fleet, long saveBeatsMs) {
    this.dbFile = dbFile;
    this.heartbeatIntervalMs = heartbeatIntervalMs;
    this.shared = new SharedRegistrations(fleet);
    this.saveBeatsMs = Math.max(100, saveBeatsMs);
  }

  @Override
  public Future<?> start() {
    monitor = MonitorBus.client(vertx);
    return vertx.executeBlocking(() -> {
      store = new NodeStore(dbFile);
      intervals.putAll(store.loadIntervals());
      return store.loadAll();
    }).compose(loaded -> {
      loaded.forEach(n -> nodes.put(n.nodeId(), n));
      LOG.info("registry loaded [nodes: {}, file: {}]", loaded.size(), dbFile);
      vertx.setPeriodic(saveBeatsMs, t -> saveHeartbeats());
      return shared.join(context, this::adopt);
    }).compose(v -> {
      var bus = vertx.eventBus();
      return Future.all(
        bus.<NodeHello>consumer(Addresses.HUB_REGISTER, this::onHello).completion(),
        bus.<JsonObject>consumer(Addresses.HUB_GOODBYE, this::onGoodbye).completion(),
        RegistryBus.serve(vertx, this),
        bus.<Object>localConsumer(Addresses.HUB_LIVENESS, this::onLiveness).completion(),
        bus.<JsonArray>localConsumer(Addresses.HUB_EXPECTED_NODES, m -> {
          Map<String, JsonObject> next = new TreeMap<>();
          m.body().forEach(o -> next.put(((JsonObject) o).getString("nodeId"), (JsonObject) o));
          expected = next;
        }).completion());
    });
  }

  /**
   * A node registered through another hub: known here too, online once its first heartbeat arrives
   * (the heartbeat proves it is alive now, not when the other hub saw it).
   */
  private void adopt(JsonObject reg) {
    String nodeId = reg.getString("nodeId");
    NodeRecord old = nodes.get(nodeId);
    long epoch = reg.getLong("epoch", 1L);
    if (nodeId == null) {
      return;
    }
    pinMember(nodeId, reg.getString("memberId"));
    if (old != null && reg.getString("instanceId", "").equals(old.instanceId()) && old.epoch() >= epoch) {
      adoptSettings(old, reg);
      return;
    }
    NodeRecord rec = SharedRegistrations.recordOf(reg, old);
    nodes.put(nodeId, rec);
    long interval = reg.getLong("intervalMs", heartbeatIntervalMs);
    told(monitor.track(new Tracking(nodeId, rec.instanceId(), reg.getString("memberId"), interval, true)), "track", nodeId);
    vertx.executeBlocking(() -> {
      store.upsert(rec);
      store.appendEvent(nodeId, System.currentTimeMillis(), "registered", "epoch " + rec.epoch() + " (through another hub)");
      return null;
    }, true).onFailure(err -> LOG.warn("cannot store a registration shared by another hub [node: {}]", nodeId, err));
  }

  /**
   * A config_update made through another hub for a node this hub knows: the same labels and heartbeat rhythm
   * here (else this hub would judge the node by its old rhythm and declare it offline).
   */
  private void adoptSettings(NodeRecord rec, JsonObject reg) {
    JsonObject labels = reg.getJsonObject("labels", new JsonObject());
    long interval = reg.getLong("intervalMs", heartbeatIntervalMs);
    boolean newLabels = !labels.equals(rec.labels());
    boolean newInterval = interval != intervals.getOrDefault(rec.nodeId(), heartbeatIntervalMs);
    if (!newLabels && !newInterval) {
      return;
    }
    if (newLabels) {
      nodes.put(rec.nodeId(), rec.withLabels(labels));
    }
    if (newInterval) {
      intervals.put(rec.nodeId(), interval);
      told(monitor.heartbeatInterval(rec.nodeId(), interval), "heartbeat interval", rec.nodeId());
    }
    LOG.info("node settings changed through another hub [node: {}, labels: {}, heartbeatMs: {}]", rec.nodeId(), labels,
      interval);
    vertx.executeBlocking(() -> {
      store.setLabels(rec.nodeId(), labels);
      store.setInterval(rec.nodeId(), interval);
      store.appendEvent(rec.nodeId(), System.currentTimeMillis(), "config_updated", "through another hub: "
        + reg.getJsonObject("update", new JsonObject()).encode());
      return null;
    }, true).onFailure(err -> LOG.warn("cannot store settings shared by another hub [node: {}]", rec.nodeId(), err));
  }

  @Override
  public Future<?> stop() {
    if (store == null) {
      return Future.succeededFuture();
    }
    Map<String, long[]> last = takeUnsavedBeats();
    return vertx.executeBlocking(() -> {
      try {
        if (!last.isEmpty()) {
          store.saveHeartbeats(last);
        }
      } finally {
        store.close();
      }
      return null;
    });
  }

  /** The sightings not yet in the file (node id → {lastSeen, lastHeartbeat}); they count as saved from now on. */
  private Map<String, long[]> takeUnsavedBeats() {
    Map<String, long[]> last = new java.util.HashMap<>();
    for (String nodeId : unsavedBeats) {
      NodeRecord rec = nodes.get(nodeId);
      if (rec != null) {
        last.put(nodeId, new long[] {rec.lastSeen(), rec.lastHeartbeat()});
      }
    }
    unsavedBeats.clear();
    return last;
  }

  /** Writes the latest heartbeat of each node that sent one since the last save, all in one transaction. */
  private void saveHeartbeats() {
    if (unsavedBeats.isEmpty()) {
      return;
    }
    Map<String, long[]> last = takeUnsavedBeats();
    vertx.executeBlocking(() -> {
      store.saveHeartbeats(last);
      return null;
    }, true).onFailure(err -> {
      LOG.warn("cannot save the nodes' last heartbeats [nodes: {}, reason: {}]", last.size(), err.getMessage());
      last.keySet().stream().filter(nodes::containsKey).forEach(unsavedBeats::add); // tried again next time
    });
  }

  private void onHello(Message<NodeHello> msg) {
    NodeHello hello = msg.body();
    // who the node is (token or credential proof) is decided first: an unproven hello learns nothing, not even a 409
    EnrollmentBus.client(vertx).admit(hello)
      .map(admitted -> {
        checkHello(hello);
        return admitted;
      })
      .onSuccess(admitted -> register(msg, hello, admitted))
      .onFailure(err -> {
        LOG.warn("hello refused [node: {}, code: {}, reason: {}]", hello.nodeId(), FailureCode.of(err).code, err.getMessage());
        FleetReplies.fail(msg, err);
      });
  }

  private void register(Message<NodeHello> msg, NodeHello hello, HelloAdmission admitted) {
    NodeRecord old = nodes.get(hello.nodeId());
    long now = System.currentTimeMillis();
    // a node that enrolls with this hello can run calls only once it has opened the answer and stored its
    // credential: it is listed online with its first (proved) heartbeat, as the monitor decides, not now
    boolean sameProcess = old != null && old.online() && hello.instanceId().equals(old.instanceId());
    boolean online = sameProcess || !admitted.enrolled() || ONLINE_AT_HELLO;
    NodeRecord rec = new NodeRecord(hello.nodeId(), hello.instanceId(), hello.platform(), hello.capabilityTier(),
      hello.labels(), hello.agentVersion(), new JsonArray(hello.tools()), old == null ? 1 : old.epoch() + 1,
      old == null ? now : old.firstSeen(), now, online, old == null ? 0 : old.lastHeartbeat(),
      old == null ? null : old.metrics(), hello.confinement());
    nodes.put(rec.nodeId(), rec);
    long interval = intervals.getOrDefault(rec.nodeId(), heartbeatIntervalMs);
    vertx.executeBlocking(() -> {
      store.upsert(rec);
      store.appendEvent(rec.nodeId(), now, "registered", "epoch " + rec.epoch());
      return null;
    }, true).onComplete(ar -> {
      if (ar.failed()) {
        LOG.error("cannot store node [node: {}]", rec.nodeId(), ar.cause());
        msg.fail(FailureCode.TOOL_FAILED.code, "hub could not store the registration; try again");
        return;
      }
      told(monitor.track(new Tracking(rec.nodeId(), rec.instanceId(), hello.memberId(), interval,
        admitted.enrolled() && !ONLINE_AT_HELLO)), "track", rec.nodeId());
      LOG.info("node registered [node: {}, epoch: {}, tier: {}, platform: {}]", rec.nodeId(), rec.epoch(),
        rec.capabilityTier(), rec.platform());
      pinMember(rec.nodeId(), hello.memberId());
      shared.share(context, rec, hello.memberId(), interval, null);
      NodeRegistered answer = new NodeRegistered(rec.epoch(), interval, admitted.sealedCredential(),
        admitted.hubPublicKey());
      String proof = NodeProofs.prove(admitted.key(), NodeProofs.REGISTERED, NodeProofs.registeredContent(hello.nodeId(),
        hello.instanceId(), hello.auth().getString("nonce"), answer));
      msg.reply(new NodeRegistered(answer.epoch(), answer.heartbeatIntervalMs(), answer.credential(),
        answer.hubPublicKey(), proof));
    });
  }

  private void checkHello(NodeHello hello) {
    if (hello.nodeId() == null || hello.instanceId() == null) {
      throw FailureCode.BAD_REQUEST.exception("hello needs nodeId and instanceId");
    }
    NodeRecord existing = nodes.get(hello.nodeId());
    if (existing != null && existing.online() && existing.instanceId() != null
      && !existing.instanceId().equals(hello.instanceId())) {
      throw FailureCode.CONFLICT.exception("node id '" + hello.nodeId() + "' is already connected from another"
        + " process (online since its last heartbeat at " + existing.lastSeen() + "); stop that process or wait"
        + " until the hub declares it offline");
    }
  }

  private void onGoodbye(Message<JsonObject> msg) {
    String nodeId = msg.body().getString("nodeId");
    NodeRecord rec = nodeId == null ? null : nodes.get(nodeId);
    if (rec == null || rec.instanceId() == null || !rec.instanceId().equals(msg.body().getString("instanceId"))) {
      msg.fail(FailureCode.NOT_FOUND.code, "no connected node " + nodeId + " with that instance");
      return;
    }
    // the monitor checks the goodbye's proof (and warns when it does not verify): another member must not take a node
    // offline
    monitor.goodbye(nodeId, msg.body());
    msg.reply(new JsonObject().put("ok", true));
  }

  /** Liveness from the heartbeat monitor: a forwarded heartbeat, or an online/offline flip. */
  private void onLiveness(Message<Object> msg) {
    if (msg.body() instanceof Heartbeat hb) {
      NodeRecord rec = nodes.get(hb.nodeId());
      if (rec != null) {
        long now = System.currentTimeMillis();
        if (rec.lastHeartbeat() > 0) {
          long gap = now - rec.lastHeartbeat();
          observedGaps.merge(rec.nodeId(), gap, (old, g) -> (old + g) / 2);
        }
        nodes.put(rec.nodeId(), rec.withHeartbeat(now, hb.metrics()));
        unsavedBeats.add(rec.nodeId());
      }
      return;
    }
    JsonObject flip = (JsonObject) msg.body();
    NodeRecord rec = nodes.get(flip.getString("nodeId"));
    if (rec == null) {
      return;
    }
    boolean online = flip.getBoolean("online");
    long at = flip.getLong("at", System.currentTimeMillis());
    String reason = flip.getString("reason");
    // a node declared offline for silence (or a member gone, a revocation) was last seen at its last heartbeat,
    // not when the hub noticed; a goodbye is a sighting
    boolean sighting = online || "disconnected".equals(reason);
    NodeRecord updated = rec.withLiveness(online, sighting ? at : 0);
    nodes.put(rec.nodeId(), updated);
    if (!online) {
      unsavedBeats.remove(updated.nodeId()); // saved now, with the offline step
    }
    vertx.executeBlocking(() -> {
      if (!online) {
        store.touch(updated.nodeId(), updated.lastSeen(), updated.lastHeartbeat());
      }
      store.appendEvent(updated.nodeId(), at, online ? "online" : "offline", reason);
      return null;
    }, true).onFailure(err -> LOG.warn("cannot store liveness [node: {}]", updated.nodeId(), err));
  }

  @Override
  public Future<Void> applySettings(NodeSettings settings) {
    String nodeId = settings.nodeId();
    NodeRecord rec = nodeId == null ? null : nodes.get(nodeId);
    if (rec == null) {
      return Future.failedFuture(FailureCode.NOT_FOUND.exception("no node '" + nodeId + "'"));
    }
    JsonObject labels = settings.labels();
    Long interval = settings.heartbeatIntervalMs();
    if (labels != null) {
      nodes.put(nodeId, rec.withLabels(labels));
    }
    if (interval != null) {
      intervals.put(nodeId, interval);
    }
    long now = System.currentTimeMillis();
    return vertx.executeBlocking(() -> {
      if (labels != null) {
        store.setLabels(nodeId, labels);
      }
      if (interval != null) {
        store.setInterval(nodeId, interval);
      }
      store.appendEvent(nodeId, now, "config_updated", "by " + settings.by() + ": " + settings.update().encode());
      return null;
    }, true).recover(err -> Future.failedFuture(FailureCode.TOOL_FAILED.exception(
      "node applied the update but the hub could not store it: " + err.getMessage())))
      .map(v -> {
        shared.share(context, nodes.get(nodeId), memberIds.get(nodeId), intervals.getOrDefault(nodeId, heartbeatIntervalMs),
          settings.update());
        return null;
      });
  }

  private static JsonObject neverConnected(JsonObject expectedNode) {
    return new JsonObject().put("nodeId", expectedNode.getString("nodeId")).put("online", false)
      .put("state", "never connected").put("labels", expectedNode.getJsonObject("labels", new JsonObject()));
  }

  /** Logs a notice the monitor did not take (it is not deployed, or refused it); nothing here waits for it. */
  private static void told(Future<Void> notice, String what, String nodeId) {
    notice.onFailure(err -> LOG.warn("monitor did not take a notice [notice: {}, node: {}, reason: {}]", what, nodeId,
      err.getMessage()));
  }

  /**
   * The member a node proved itself on (its proven hello, or another hub's sealed registration): from now on only
   * that member's consumers receive the node's calls and controls (MemberPins).
   */
  private void pinMember(String nodeId, String memberId) {
    memberIds.put(nodeId, memberId);
    MemberPins.of(vertx).pin(nodeId, memberId);
  }

  @Override
  public Future<Boolean> forget(String nodeId) {
    if (nodeId == null) {
      return Future.failedFuture(FailureCode.BAD_REQUEST.exception("forget needs a node id"));
    }
    memberIds.remove(nodeId);
    unsavedBeats.remove(nodeId);
    MemberPins.of(vertx).unpin(nodeId);
    boolean known = nodes.remove(nodeId) != null;
    shared.remove(context, nodeId);
    told(monitor.forget(nodeId), "forget", nodeId);
    return vertx.executeBlocking(() -> {
      store.delete(nodeId);
      return null;
    }, true).otherwise(err -> {
      LOG.warn("cannot delete node [node: {}]", nodeId, err);
      return null;
    }).map(known);
  }

  @Override
  public Future<NodeRecord> lookup(String nodeId) {
    NodeRecord rec = nodeId == null ? null : nodes.get(nodeId);
    return rec != null ? Future.succeededFuture(rec) : Future.failedFuture(unknown(nodeId));
  }

  @Override
  public Future<JsonObject> describe(String nodeId) {
    NodeRecord rec = nodeId == null ? null : nodes.get(nodeId);
    if (rec == null) {
      return nodeId != null && expected.containsKey(nodeId) ? Future.succeededFuture(neverConnected(expected.get(nodeId)))
        : Future.failedFuture(unknown(nodeId));
    }
    long interval = intervals.getOrDefault(nodeId, heartbeatIntervalMs);
    return vertx.executeBlocking(() -> store.events(nodeId, 50), true)
      .map(events -> rec.toJson().put("heartbeatIntervalMs", interval).put("observedHeartbeatMs", observedGaps.get(nodeId))
        .put("lifecycle", events))
      .recover(err -> Future.failedFuture(FailureCode.TOOL_FAILED.exception("cannot read the lifecycle of " + nodeId)));
  }

  /** 400 without a node id (a caller's bug), else 404 naming the node. */
  private static RuntimeException unknown(String nodeId) {
    return nodeId == null ? FailureCode.BAD_REQUEST.exception("a registry question needs a node id")
      : FailureCode.NOT_FOUND.exception("no node '" + nodeId + "' is known to this hub: GET /api/v1/nodes lists the nodes");
  }

  @Override
  public Future<JsonObject> list() {
    JsonArray list = new JsonArray();
    nodes.values().forEach(n -> list.add(n.toJson()));
    expected.values().stream().filter(e -> !nodes.containsKey(e.getString("nodeId")))
      .forEach(e -> list.add(neverConnected(e)));
    return Future.succeededFuture(new JsonObject().put("nodes", list));
  }

  @Override
  public Future<java.util.List<NodeRecord>> candidates() {
    return Future.succeededFuture(java.util.List.copyOf(nodes.values()));
  }

  @Override
  public Future<Void> ping() {
    return vertx.executeBlocking(() -> store.ping(), true).<Void>mapEmpty()
      .recover(err -> Future.failedFuture(FailureCode.TOOL_FAILED.exception(
        "the registry's SQLite file cannot be read: " + err.getMessage())));
  }
}
