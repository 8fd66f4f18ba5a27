package io.fleetbus.hub.registry;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.function.BooleanSupplier;

/** A registry for tests that knows any node asked about, online while {@code online} says so; nothing else. */
public final class RegistryStandIn implements RegistryService {
  private final BooleanSupplier online;

  public RegistryStandIn(BooleanSupplier online) {
    this.online = online;
  }

  @Override
  public Future<NodeRecord> lookup(String nodeId) {
    long now = System.currentTimeMillis();
    return Future.succeededFuture(new NodeRecord(nodeId, "i1", "linux", "sudo", new JsonObject(), "test",
      new JsonArray(), 1, now, now, online.getAsBoolean(), now, null));
  }

  @Override
  public Future<JsonObject> describe(String nodeId) {
    return Future.failedFuture("not in this test");
  }

  @Override
  public Future<JsonObject> list() {
    return Future.failedFuture("not in this test");
  }

  @Override
  public Future<List<NodeRecord>> candidates() {
    return Future.failedFuture("not in this test");
  }

  @Override
  public Future<Void> applySettings(NodeSettings settings) {
    return Future.failedFuture("not in this test");
  }

  @Override
  public Future<Void> ping() {
    return Future.succeededFuture();
  }

  @Override
  public Future<Boolean> forget(String nodeId) {
    return Future.failedFuture("not in this test");
  }
}
