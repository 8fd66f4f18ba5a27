package io.fleetbus.hub.registry;

import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.enrollment.EnrollmentBus;
import io.fleetbus.hub.monitor.MonitorBus;
import io.fleetbus.hub.monitor.MonitorService;
import io.fleetbus.hub.store.GroupCommit;
import io.fleetbus.hub.store.Transactions;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.cluster.MemberPins;
import io.fleetbus.shared.msg.Heartbeat;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns what the hub knows about nodes and serves {@link RegistryService}: the live view (online, last heartbeat,
 * metrics) in memory ({@link NodeTable}), the durable table in SQLite ({@link NodeStore}: registrations and lifecycle
 * steps in group commit, a {@link GroupCommit}; last heartbeats batched by {@link HeartbeatSaver}), the nodes' hellos and goodbyes ({@link HelloDesk}). State is confined to this verticle: its
 * helpers run on its event loop. Registrations are shared with the fleet's other hubs (a Hazelcast map,
 * {@link SharedRegistrations}, taken in by {@link FleetAdoption}): a node that said hello to one hub is known to all,
 * and each judges its liveness from the heartbeats every hub receives.
 */
public final class RegistryVerticle extends VerticleBase implements RegistryService {
  private static final Logger LOG = LoggerFactory.getLogger(RegistryVerticle.class);
  /** The default of {@code lastHeartbeatSaveMs} in the hub's conf. */
  public static final long DEFAULT_SAVE_BEATS_MS = 10_000;
  /** At most this many writes in one transaction (a hello storm's batches are the hellos in flight). */
  private static final int WRITES_PER_BATCH = 512;

  private final Path dbFile;
  private final long heartbeatIntervalMs;
  /** How often the last heartbeats are written (one write per node at most per interval, not one per heartbeat). */
  private final long saveBeatsMs;
  private final SharedRegistrations shared;
  private NodeTable table;
  private NodeStore store;
  private HeartbeatSaver beats;
  /** The registry's writes to its file, in group commit (one transaction per batch). */
  private GroupCommit<Transactions.Step<NodeStore>> writes;
  private MonitorService monitor;
  private final NodeView view;

  public RegistryVerticle(Path dbFile, long heartbeatIntervalMs) {
    this(dbFile, heartbeatIntervalMs, null, DEFAULT_SAVE_BEATS_MS, new NodeView());
  }

  /**
   * @param saveBeatsMs how often the nodes' last heartbeat times are written to the file (also on every offline
   *                    transition and at a clean stop), so a restarted hub shows when each node was really last seen
   */
  public RegistryVerticle(Path dbFile, long heartbeatIntervalMs, FleetState fleet, long saveBeatsMs) {
    this(dbFile, heartbeatIntervalMs, fleet, saveBeatsMs, new NodeView());
  }

  /** @param view where the router reads the nodes this registry knows (kept current with every change) */
  public RegistryVerticle(Path dbFile, long heartbeatIntervalMs, FleetState fleet, long saveBeatsMs, NodeView view) {
    this.view = view;
    this.dbFile = dbFile;
    this.heartbeatIntervalMs = heartbeatIntervalMs;
    this.shared = new SharedRegistrations(fleet);
    this.saveBeatsMs = Math.max(100, saveBeatsMs);
  }

  @Override
  public Future<?> start() {
    monitor = MonitorBus.client(vertx);
    table = new NodeTable(heartbeatIntervalMs, MemberPins.of(vertx), view);
    return vertx.executeBlocking(() -> {
      store = new NodeStore(dbFile);
      table.load(store.loadAll(), store.loadIntervals());
      return table.records().size();
    }).compose(loaded -> {
      LOG.info("registry loaded [nodes: {}, file: {}]", loaded, dbFile);
      writes = new GroupCommit<>(vertx, "registry", 0, WRITES_PER_BATCH, store::apply);
      beats = new HeartbeatSaver(vertx, store, table);
      beats.every(saveBeatsMs);
      return shared.join(context, new FleetAdoption(table, writes, monitor)::adopt);
    }).compose(v -> Future.all(
      new HelloDesk(context, table, writes, shared, EnrollmentBus.client(vertx), monitor).open(),
      RegistryBus.serve(vertx, this),
      vertx.eventBus().<Object>localConsumer(Addresses.HUB_LIVENESS, this::onLiveness).completion(),
      vertx.eventBus().<JsonArray>localConsumer(Addresses.HUB_EXPECTED_NODES, m -> table.expect(m.body())).completion()));
  }

  @Override
  public Future<?> stop() {
    return beats == null ? Future.succeededFuture() : writes.drain().eventually(beats::flushAndClose);
  }

  /** Batches committed so far (heartbeat saves included): what the group commit's test counts. */
  long commits() {
    return store == null ? 0 : store.commits();
  }

  /** Logs a notice the monitor did not take (it is not deployed, or refused it); nothing here waits for it. */
  static void told(Future<Void> notice, String what, String nodeId) {
    notice.onFailure(err -> LOG.warn("monitor did not take a notice [notice: {}, node: {}, reason: {}]", what, nodeId,
      err.getMessage()));
  }

  /** Liveness from the heartbeat monitor: a forwarded heartbeat, or an online/offline flip. */
  private void onLiveness(Message<Object> msg) {
    if (msg.body() instanceof Heartbeat hb) {
      if (table.heartbeat(hb.nodeId(), System.currentTimeMillis(), hb.metrics())) {
        beats.beat(hb.nodeId());
      }
      return;
    }
    JsonObject flip = (JsonObject) msg.body();
    NodeRecord rec = table.get(flip.getString("nodeId"));
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
    table.put(updated);
    if (!online) {
      beats.drop(updated.nodeId()); // saved now, with the offline step
    }
    // with the registry's next batch: a storm of first heartbeats costs one transaction per batch, not per node
    writes.add(store -> {
      if (!online) {
        store.touch(updated.nodeId(), updated.lastSeen(), updated.lastHeartbeat());
      }
      store.appendEvent(updated.nodeId(), at, online ? "online" : "offline", reason);
    });
  }

  @Override
  public Future<NodeRecord> lookup(String nodeId) {
    return view.lookup(nodeId);
  }

  @Override
  public Future<JsonObject> describe(String nodeId) {
    NodeRecord rec = table.get(nodeId);
    if (rec == null) {
      JsonObject expected = table.neverConnected(nodeId);
      return expected != null ? Future.succeededFuture(expected) : Future.failedFuture(NodeView.unknown(nodeId));
    }
    JsonObject view = table.view(rec);
    writes.flushNow(); // the steps still queued are read too
    return vertx.executeBlocking(() -> store.events(nodeId, 50), true)
      .map(events -> view.put("lifecycle", events))
      .recover(err -> Future.failedFuture(FailureCode.TOOL_FAILED.exception("cannot read the lifecycle of " + nodeId)));
  }

  @Override
  public Future<JsonObject> list() {
    return Future.succeededFuture(new JsonObject().put("nodes", table.list()));
  }

  @Override
  public Future<List<NodeRecord>> candidates() {
    return Future.succeededFuture(table.records());
  }

  @Override
  public Future<Void> applySettings(NodeSettings settings) {
    String nodeId = settings.nodeId();
    NodeRecord rec = table.get(nodeId);
    if (rec == null) {
      return Future.failedFuture(FailureCode.NOT_FOUND.exception("no node '" + nodeId + "'"));
    }
    JsonObject labels = settings.labels();
    Long interval = settings.heartbeatIntervalMs();
    if (labels != null) {
      table.put(rec.withLabels(labels));
    }
    if (interval != null) {
      table.setInterval(nodeId, interval);
    }
    long now = System.currentTimeMillis();
    String update = settings.update().encode();
    return writes.commit(store -> {
      if (labels != null) {
        store.setLabels(nodeId, labels);
      }
      if (interval != null) {
        store.setInterval(nodeId, interval);
      }
      store.appendEvent(nodeId, now, "config_updated", "by " + settings.by() + ": " + update);
    }).recover(err -> Future.failedFuture(FailureCode.TOOL_FAILED.exception(
      "node applied the update but the hub could not store it: " + err.getMessage())))
      .map(v -> {
        shared.share(context, table.get(nodeId), table.memberOf(nodeId), table.busOf(nodeId), table.transportOf(nodeId),
          table.intervalOf(nodeId), settings.update());
        return null;
      });
  }

  @Override
  public Future<Void> ping() {
    return vertx.executeBlocking(() -> store.ping(), true).<Void>mapEmpty()
      .recover(err -> Future.failedFuture(FailureCode.TOOL_FAILED.exception(
        "the registry's SQLite file cannot be read: " + err.getMessage())));
  }

  @Override
  public Future<Boolean> forget(String nodeId) {
    if (nodeId == null) {
      return Future.failedFuture(FailureCode.BAD_REQUEST.exception("forget needs a node id"));
    }
    beats.drop(nodeId);
    boolean known = table.remove(nodeId);
    shared.remove(context, nodeId);
    told(monitor.forget(nodeId), "forget", nodeId);
    return writes.commit(store -> store.delete(nodeId)).otherwise(err -> {
      LOG.warn("cannot delete node [node: {}]", nodeId, err);
      return null;
    }).map(known);
  }
}
