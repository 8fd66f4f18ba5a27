package io.fleetbus.hub.monitor;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The two ends of {@link MonitorService} on the hub's local bus: one address per operation under
 * {@link Addresses#HUB_MONITOR}, JSON bodies, failures keeping their code. The monitor verticle serves; the registry,
 * the node-config verticle and the hub's membership listener ask through {@link #client}.
 */
public final class MonitorBus {
  /**
   * The operations, each at its own address: {@link Addresses#HUB_MONITOR} + "." + its name in lower case, e.g.
   * {@code fleet.hub.monitor.member-left}.
   */
  private enum Op {
    TRACK, INTERVAL, GOODBYE, FORGET, MEMBER_LEFT;

    final String address = LocalServices.address(Addresses.HUB_MONITOR, this);
  }

  private MonitorBus() {
  }

  /** The monitor as seen from any verticle (or thread) of this hub. */
  public static MonitorService client(Vertx vertx) {
    return new Client(vertx);
  }

  /** Serves every operation of {@code monitor} on this Vert.x; completes once all its consumers are registered. */
  public static Future<Void> serve(Vertx vertx, MonitorService monitor) {
    return Future.all(List.of(
      LocalServices.<JsonObject, Void>serve(vertx, Op.TRACK.address,
        body -> monitor.track(Tracking.fromJson(body))).completion(),
      LocalServices.<JsonObject, Void>serve(vertx, Op.INTERVAL.address,
        body -> monitor.heartbeatInterval(body.getString("nodeId"), body.getLong("intervalMs"))).completion(),
      LocalServices.<JsonObject, Void>serve(vertx, Op.GOODBYE.address,
        body -> monitor.goodbye(body.getString("nodeId"), body.getJsonObject("goodbye"))).completion(),
      LocalServices.<String, Void>serve(vertx, Op.FORGET.address, monitor::forget).completion(),
      LocalServices.<String, Void>serve(vertx, Op.MEMBER_LEFT.address, monitor::memberLeft).completion())).mapEmpty();
  }

  private static JsonObject goodbyeOf(String nodeId, JsonObject goodbye) {
    return new JsonObject().put("nodeId", nodeId).put("goodbye", goodbye);
  }

  /** Asks the monitor's addresses; holds no state. */
  private record Client(Vertx vertx) implements MonitorService {
    @Override
    public Future<Void> track(Tracking tracking) {
      return LocalServices.ask(vertx, Op.TRACK.address, tracking.toJson());
    }

    @Override
    public Future<Void> heartbeatInterval(String nodeId, long intervalMs) {
      JsonObject request = new JsonObject().put("nodeId", nodeId).put("intervalMs", intervalMs);
      return LocalServices.ask(vertx, Op.INTERVAL.address, request);
    }

    @Override
    public Future<Void> goodbye(String nodeId, JsonObject goodbye) {
      return LocalServices.ask(vertx, Op.GOODBYE.address, goodbyeOf(nodeId, goodbye));
    }

    @Override
    public Future<Void> forget(String nodeId) {
      return LocalServices.ask(vertx, Op.FORGET.address, nodeId);
    }

    @Override
    public Future<Void> memberLeft(String memberId) {
      return LocalServices.ask(vertx, Op.MEMBER_LEFT.address, memberId);
    }
  }
}
