package io.fleetbus.hub.registry;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The two ends of {@link RegistryService} on the hub's local bus: one address per operation under
 * {@link Addresses#HUB_REGISTRY} (so nothing dispatches on a header), failures keeping their code. The registry
 * verticle serves; any other verticle asks through {@link #client}. Records pass by reference ({@code LocalCodec} for
 * {@link NodeRecord} and {@link NodeRecord.Snapshot}, registered once per Vert.x by the hub).
 */
public final class RegistryBus {
  /**
   * Header a hub's edge endpoint sets on a hello it relays from its own process (a local send): the node is an edge
   * node. Only what the node view shows depends on it (the node's calls go to the member its proven hello names).
   */
  public static final String EDGE_HELLO = "fb-edge";

  /**
   * The operations, each at its own address: {@link Addresses#HUB_REGISTRY} + "." + its name in lower case, e.g.
   * {@code fleet.hub.registry.lookup}.
   */
  private enum Op {
    LOOKUP, DESCRIBE, LIST, CANDIDATES, SETTINGS, PING, FORGET;

    final String address = LocalServices.address(Addresses.HUB_REGISTRY, this);
  }

  private static final long DEFAULT_TIMEOUT_MS = 30_000;

  private RegistryBus() {
  }

  /** The registry as seen from any verticle of this hub (asks within 30 s). */
  public static RegistryService client(Vertx vertx) {
    return client(vertx, DEFAULT_TIMEOUT_MS);
  }

  /** As {@link #client(Vertx)}, each question failing after {@code timeoutMs}: for checks that must answer fast. */
  public static RegistryService client(Vertx vertx, long timeoutMs) {
    return new Client(vertx, timeoutMs);
  }

  /** Serves every operation of {@code registry} on this Vert.x; completes once all its consumers are registered. */
  public static Future<Void> serve(Vertx vertx, RegistryService registry) {
    return Future.all(List.of(
      LocalServices.<String, NodeRecord>serve(vertx, Op.LOOKUP.address, registry::lookup).completion(),
      LocalServices.<String, JsonObject>serve(vertx, Op.DESCRIBE.address, registry::describe).completion(),
      LocalServices.<Object, JsonObject>serve(vertx, Op.LIST.address, none -> registry.list()).completion(),
      LocalServices.<Object, NodeRecord.Snapshot>serve(vertx, Op.CANDIDATES.address,
        none -> registry.candidates().map(NodeRecord.Snapshot::new)).completion(),
      LocalServices.<JsonObject, Void>serve(vertx, Op.SETTINGS.address,
        body -> registry.applySettings(NodeSettings.fromJson(body))).completion(),
      LocalServices.<Object, Void>serve(vertx, Op.PING.address, none -> registry.ping()).completion(),
      LocalServices.<String, Boolean>serve(vertx, Op.FORGET.address, registry::forget).completion())).mapEmpty();
  }

  /** Asks the registry's addresses; holds no state. */
  private record Client(Vertx vertx, long timeoutMs) implements RegistryService {
    @Override
    public Future<NodeRecord> lookup(String nodeId) {
      return LocalServices.ask(vertx, Op.LOOKUP.address, nodeId, timeoutMs);
    }

    @Override
    public Future<JsonObject> describe(String nodeId) {
      return LocalServices.ask(vertx, Op.DESCRIBE.address, nodeId, timeoutMs);
    }

    @Override
    public Future<JsonObject> list() {
      return LocalServices.ask(vertx, Op.LIST.address, null, timeoutMs);
    }

    @Override
    public Future<List<NodeRecord>> candidates() {
      return LocalServices.<NodeRecord.Snapshot>ask(vertx, Op.CANDIDATES.address, null, timeoutMs)
        .map(NodeRecord.Snapshot::nodes);
    }

    @Override
    public Future<Void> applySettings(NodeSettings settings) {
      return LocalServices.ask(vertx, Op.SETTINGS.address, settings.toJson(), timeoutMs);
    }

    @Override
    public Future<Void> ping() {
      return LocalServices.ask(vertx, Op.PING.address, null, timeoutMs);
    }

    @Override
    public Future<Boolean> forget(String nodeId) {
      return LocalServices.ask(vertx, Op.FORGET.address, nodeId, timeoutMs);
    }
  }
}
