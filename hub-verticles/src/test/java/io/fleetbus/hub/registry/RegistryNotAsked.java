package io.fleetbus.hub.registry;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * A registry for tests of what uses one: every operation fails "not asked by …", so a test overrides only what the
 * code under test should ask, and an unexpected question shows up as that failure.
 */
public class RegistryNotAsked implements RegistryService {
  private final String by;

  /** @param by who the test stands the registry in for (named in the failures) */
  public RegistryNotAsked(String by) {
    this.by = by;
  }

  private <T> Future<T> notAsked() {
    return Future.failedFuture("not asked by " + by);
  }

  @Override
  public Future<NodeRecord> lookup(String nodeId) {
    return notAsked();
  }

  @Override
  public Future<JsonObject> describe(String nodeId) {
    return notAsked();
  }

  @Override
  public Future<JsonObject> list() {
    return notAsked();
  }

  @Override
  public Future<List<NodeRecord>> candidates() {
    return notAsked();
  }

  @Override
  public Future<Void> applySettings(NodeSettings settings) {
    return notAsked();
  }

  @Override
  public Future<Void> ping() {
    return notAsked();
  }

  @Override
  public Future<Boolean> forget(String nodeId) {
    return notAsked();
  }
}
