package io.fleetbus.hub.enrollment;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.fleetbus.shared.msg.NodeHello;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The two ends of {@link EnrollmentService} on the hub's local bus: one address per operation under
 * {@link Addresses#HUB_ENROLLMENT}, failures keeping their code. The enrollment verticle serves; the registry (hellos)
 * and the API (tokens, rekey, revoke) ask through {@link #client}. {@link HelloAdmission} carries a key, so it travels
 * by reference only ({@code LocalCodec}, registered once per Vert.x by the hub; it fails loudly on the cluster).
 */
public final class EnrollmentBus {
  /**
   * The operations, each at its own address: {@link Addresses#HUB_ENROLLMENT} + "." + its name in lower case, e.g.
   * {@code fleet.hub.enrollment.create-token}.
   */
  private enum Op {
    ADMIT, CREATE_TOKEN, REKEY, REVOKE;

    final String address = LocalServices.address(Addresses.HUB_ENROLLMENT, this);
  }

  private EnrollmentBus() {
  }

  /** Enrollment as seen from any verticle of this hub (asks within 30 s: a rekey waits for the node's answer). */
  public static EnrollmentService client(Vertx vertx) {
    return new Client(vertx);
  }

  /** Serves every operation of {@code enrollment} on this Vert.x; completes once all its consumers are registered. */
  public static Future<Void> serve(Vertx vertx, EnrollmentService enrollment) {
    return Future.all(List.of(
      LocalServices.<NodeHello, HelloAdmission>serve(vertx, Op.ADMIT.address, enrollment::admit).completion(),
      LocalServices.<JsonObject, JsonObject>serve(vertx, Op.CREATE_TOKEN.address, body -> enrollment.createToken(
        body.getString("nodeId"), body.getLong("ttlMinutes"), body.getString("by"))).completion(),
      LocalServices.<JsonObject, JsonObject>serve(vertx, Op.REKEY.address,
        body -> enrollment.rekey(body.getString("nodeId"), body.getString("by"))).completion(),
      LocalServices.<JsonObject, JsonObject>serve(vertx, Op.REVOKE.address,
        body -> enrollment.revoke(body.getString("nodeId"), body.getString("by"))).completion())).mapEmpty();
  }

  /** Asks the enrollment verticle's addresses; holds no state. */
  private record Client(Vertx vertx) implements EnrollmentService {
    @Override
    public Future<HelloAdmission> admit(NodeHello hello) {
      return LocalServices.ask(vertx, Op.ADMIT.address, hello);
    }

    @Override
    public Future<JsonObject> createToken(String nodeId, Long ttlMinutes, String by) {
      JsonObject request = new JsonObject().put("nodeId", nodeId).put("ttlMinutes", ttlMinutes).put("by", by);
      return LocalServices.ask(vertx, Op.CREATE_TOKEN.address, request);
    }

    @Override
    public Future<JsonObject> rekey(String nodeId, String by) {
      return LocalServices.ask(vertx, Op.REKEY.address, new JsonObject().put("nodeId", nodeId).put("by", by));
    }

    @Override
    public Future<JsonObject> revoke(String nodeId, String by) {
      return LocalServices.ask(vertx, Op.REVOKE.address, new JsonObject().put("nodeId", nodeId).put("by", by));
    }
  }
}
