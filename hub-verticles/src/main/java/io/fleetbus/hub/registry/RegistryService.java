package io.fleetbus.hub.registry;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * What the hub knows about nodes, as the rest of the hub asks it: runtime lookups for routing, approval and the call
 * records, the API's views, and the few changes other verticles make (confirmed settings, a revoked node). Served by
 * {@link RegistryVerticle}, which owns the state; reached through {@link RegistryBus#client}. Every failure carries its
 * {@link io.fleetbus.shared.bus.FailureCode}: 400 for a request without a node id, 404 for a node nobody knows, 500 when
 * the registry's SQLite file cannot be read or written.
 */
public interface RegistryService {

  /** The node's live record, for the hot path (no copy, no file access); 404 when no node has that id. */
  Future<NodeRecord> lookup(String nodeId);

  /**
   * The node as the API shows it: its record with its heartbeat interval (as set, and as observed) and its last 50
   * lifecycle events; a node the hub's config expects but that never said hello is shown as "never connected".
   */
  Future<JsonObject> describe(String nodeId);

  /** Every known node (and every expected one that never connected), as the API shows them: {@code {nodes: [...]}}. */
  Future<JsonObject> list();

  /** A consistent copy of every known node, online or not, for the router to pick from. */
  Future<List<NodeRecord>> candidates();

  /** A config_update the node confirmed: its labels and heartbeat interval as the hub now knows them (stored, shared). */
  Future<Void> applySettings(NodeSettings settings);

  /** Succeeds when the registry's SQLite file can be read (the readiness check). */
  Future<Void> ping();

  /** A revoked node: gone from memory, the file, the other hubs and the monitor; answers whether it was known. */
  Future<Boolean> forget(String nodeId);
}
