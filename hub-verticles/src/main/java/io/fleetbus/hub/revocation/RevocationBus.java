package io.fleetbus.hub.revocation;

import io.fleetbus.hub.auth.Revocation;
import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** The two ends of {@link RevocationService} on the hub's local bus, one address per operation under {@link #SERVICE}. */
public final class RevocationBus {
  public static final String SERVICE = "fleet.hub.revocations";

  private enum Op {
    REVOKE, LIST;

    final String address = LocalServices.address(SERVICE, this);
  }

  private RevocationBus() {
  }

  public static RevocationService client(Vertx vertx) {
    return new Client(vertx);
  }

  /** Serves every operation of {@code service}; completes once its consumers are registered. */
  public static Future<Void> serve(Vertx vertx, RevocationService service) {
    return Future.all(List.of(
      LocalServices.<JsonObject, JsonObject>serve(vertx, Op.REVOKE.address, body -> service.revoke(
        Revocation.Kind.valueOf(body.getString("kind")), body.getString("value"), body.getString("by"))).completion(),
      LocalServices.<Object, JsonObject>serve(vertx, Op.LIST.address, body -> service.list()).completion())).mapEmpty();
  }

  private record Client(Vertx vertx) implements RevocationService {
    @Override
    public Future<JsonObject> revoke(Revocation.Kind kind, String value, String by) {
      return LocalServices.ask(vertx, Op.REVOKE.address, new JsonObject().put("kind", kind.name()).put("value", value)
        .put("by", by));
    }

    @Override
    public Future<JsonObject> list() {
      return LocalServices.ask(vertx, Op.LIST.address, new JsonObject());
    }
  }
}
