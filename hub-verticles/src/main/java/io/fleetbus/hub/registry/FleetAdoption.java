package io.fleetbus.hub.registry;

import io.fleetbus.hub.monitor.MonitorService;
import io.fleetbus.hub.monitor.Tracking;
import io.fleetbus.hub.store.GroupCommit;
import io.fleetbus.hub.store.Transactions;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What another hub of the fleet learnt, taken in here ({@link SharedRegistrations} hands each shared registration
 * over): a node that said hello there is known here too, offline until its first heartbeat arrives here (the heartbeat
 * proves it is alive now, not when the other hub saw it); a config_update made there gives the node the same labels
 * and heartbeat rhythm here, written with the registry's next batch (nobody waits for it). Runs on the registry
 * verticle's event loop.
 */
record FleetAdoption(NodeTable table, GroupCommit<Transactions.Step<NodeStore>> writes, MonitorService monitor) {
  private static final Logger LOG = LoggerFactory.getLogger(FleetAdoption.class);

  /** A registration shared by another hub: a new node or process, or new settings of one known here. */
  void adopt(JsonObject reg) {
    String nodeId = reg.getString("nodeId");
    if (nodeId == null) {
      return;
    }
    NodeRecord old = table.get(nodeId);
    table.pin(nodeId, reg.getString("memberId"), reg.getString("transport"), reg.getString("bus"));
    if (old != null && reg.getString("instanceId", "").equals(old.instanceId()) && old.epoch() >= reg.getLong("epoch", 1L)) {
      adoptSettings(old, reg);
      return;
    }
    NodeRecord adopted = SharedRegistrations.recordOf(reg, old);
    // the same process, online here, said hello again through another hub (an edge node relinked): the monitor keeps it
    // online (no flip will come to say so again), so the record does too — else it stayed listed offline here
    NodeRecord rec = old != null && old.online() && adopted.instanceId() != null
      && adopted.instanceId().equals(old.instanceId()) ? adopted.withLiveness(true, adopted.lastSeen()) : adopted;
    table.put(rec);
    long interval = reg.getLong("intervalMs", table.intervalOf(nodeId));
    RegistryVerticle.told(monitor.track(new Tracking(nodeId, rec.instanceId(), reg.getString("memberId"), interval, true)),
      "track", nodeId);
    long now = System.currentTimeMillis();
    writes.add(store -> {
      store.upsert(rec);
      store.appendEvent(nodeId, now, "registered", "epoch " + rec.epoch() + " (through another hub)");
    });
  }

  /**
   * A config_update made through another hub for a node this hub knows: the same labels and heartbeat rhythm
   * here (else this hub would judge the node by its old rhythm and declare it offline).
   */
  private void adoptSettings(NodeRecord rec, JsonObject reg) {
    JsonObject labels = reg.getJsonObject("labels", new JsonObject());
    long interval = reg.getLong("intervalMs", table.intervalOf(rec.nodeId()));
    boolean newLabels = !labels.equals(rec.labels());
    boolean newInterval = interval != table.intervalOf(rec.nodeId());
    if (!newLabels && !newInterval) {
      return;
    }
    if (newLabels) {
      table.put(rec.withLabels(labels));
    }
    if (newInterval) {
      table.setInterval(rec.nodeId(), interval);
      RegistryVerticle.told(monitor.heartbeatInterval(rec.nodeId(), interval), "heartbeat interval", rec.nodeId());
    }
    LOG.info("node settings changed through another hub [node: {}, labels: {}, heartbeatMs: {}]", rec.nodeId(), labels,
      interval);
    long now = System.currentTimeMillis();
    String update = reg.getJsonObject("update", new JsonObject()).encode();
    writes.add(store -> {
      store.setLabels(rec.nodeId(), labels);
      store.setInterval(rec.nodeId(), interval);
      store.appendEvent(rec.nodeId(), now, "config_updated", "through another hub: " + update);
    });
  }
}
