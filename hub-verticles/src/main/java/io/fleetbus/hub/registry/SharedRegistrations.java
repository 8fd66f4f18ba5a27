package io.fleetbus.hub.registry;

import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.cluster.SharedMap;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registrations every hub of the fleet sees (a shared Hazelcast map, one entry per node): what a node's hello
 * said, its cluster member, its heartbeat rhythm, and the config_update that last changed its settings. Each hub
 * judges liveness itself from the heartbeats every hub receives. Without a fleet (a verticle tested on its own)
 * nothing is shared. Registrations written in one event-loop turn go to the map in one write.
 */
final class SharedRegistrations {
  private static final Logger LOG = LoggerFactory.getLogger(SharedRegistrations.class);

  private final SharedMap shared;
  /** Registrations written here since the turn began, shared at its end (node id → registration). */
  private final Map<String, JsonObject> unshared = new LinkedHashMap<>();

  SharedRegistrations(FleetState fleet) {
    this.shared = fleet == null ? null : fleet.map(FleetState.NODES);
  }

  /** Hands every registration the fleet holds to {@code adopt}, and those other hubs write from now on. */
  Future<Void> join(Context ctx, Consumer<JsonObject> adopt) {
    if (shared == null) {
      return Future.succeededFuture();
    }
    shared.listen(ctx, (nodeId, reg) -> {
      if (reg != null) {
        adopt.accept(reg);
      }
    });
    return shared.entries(ctx).map(all -> {
      all.forEach(e -> adopt.accept(e.value()));
      return null;
    });
  }

  /** @param update the config_update that changed the node's settings, when that is the news (else null) */
  void share(Context ctx, NodeRecord rec, String memberId, String bus, String transport, long intervalMs,
             JsonObject update) {
    if (shared == null) {
      return;
    }
    JsonObject reg = new JsonObject().put("update", update).put("nodeId", rec.nodeId()).put("instanceId", rec.instanceId())
      .put("platform", rec.platform()).put("capabilityTier", rec.capabilityTier()).put("labels", rec.labels())
      .put("agentVersion", rec.agentVersion()).put("tools", rec.tools()).put("epoch", rec.epoch())
      .put("firstSeen", rec.firstSeen()).put("at", rec.lastSeen()).put("memberId", memberId).put("bus", bus).put("transport", transport).put("intervalMs", intervalMs)
      .put("confinement", rec.confinement());
    if (unshared.isEmpty()) {
      ctx.runOnContext(v -> shareAll(ctx));
    }
    unshared.put(rec.nodeId(), reg);
  }

  /** What this event-loop turn shared (a committed batch of hellos answers in one turn): one map write for all. */
  private void shareAll(Context ctx) {
    Map<String, JsonObject> batch = new LinkedHashMap<>(unshared);
    unshared.clear();
    shared.setAll(ctx, batch).onFailure(err -> LOG.warn("registrations not shared with the other hubs [nodes: {}]",
      batch.keySet(), err));
  }

  void remove(Context ctx, String nodeId) {
    if (shared != null) {
      unshared.remove(nodeId); // not shared at this turn's end either
      shared.remove(ctx, nodeId).onFailure(err -> LOG.warn("registration not removed from the fleet [node: {}]", nodeId, err));
    }
  }

  /** The record another hub's registration describes, offline until a heartbeat arrives here; {@code old} as known here. */
  static NodeRecord recordOf(JsonObject reg, NodeRecord old) {
    return new NodeRecord(reg.getString("nodeId"), reg.getString("instanceId"), reg.getString("platform"),
      reg.getString("capabilityTier"), reg.getJsonObject("labels", new JsonObject()), reg.getString("agentVersion"),
      reg.getJsonArray("tools", new JsonArray()), Math.max(reg.getLong("epoch", 1L), old == null ? 0 : old.epoch()),
      old == null ? reg.getLong("firstSeen", System.currentTimeMillis()) : old.firstSeen(), reg.getLong("at", 0L), false,
      old == null ? 0 : old.lastHeartbeat(), old == null ? null : old.metrics(), reg.getJsonObject("confinement"));
  }
}
