package io.fleetbus.hub.calls;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * {@link CallService} on the hub's own bus: one local address per operation under {@code fleet.hub.calls}. A
 * {@link CallRecord} travels by reference ({@code LocalCodec}, registered once per Vert.x by the hub's assembly).
 */
public final class CallBus {
  public static final String RECORD = Addresses.HUB_CALLS + ".record";
  public static final String CANCEL = Addresses.HUB_CALLS + ".cancel";
  public static final String ENDED = Addresses.HUB_CALLS + ".ended";
  /** A cancel waits for the node's answer (its control request gives up after 6 s). */
  private static final long CANCEL_TIMEOUT_MS = 10_000;

  private CallBus() {
  }

  /** The client end: every operation is a local request to the verticle that keeps the calls. */
  public static CallService client(Vertx vertx) {
    return new CallService() {
      @Override
      public Future<CallRecord> record(String callId, long waitMs) {
        return LocalServices.ask(vertx, RECORD, new JsonObject().put("callId", callId).put("waitMs", waitMs),
          waitMs + 5000);
      }

      @Override
      public Future<JsonObject> cancel(String callId, String by, List<String> roles) {
        return LocalServices.ask(vertx, CANCEL, new JsonObject().put("callId", callId).put("by", by)
          .put("roles", new JsonArray(roles)), CANCEL_TIMEOUT_MS);
      }

      @Override
      public Future<JsonArray> ended() {
        return LocalServices.ask(vertx, ENDED, new JsonObject());
      }
    };
  }

  /** Serves {@code calls} (called by the verticle whose event loop keeps them, in its start). */
  public static Future<Void> serve(Vertx vertx, CallService calls) {
    return Future.all(
      LocalServices.<JsonObject, CallRecord>serve(vertx, RECORD, q -> calls.record(q.getString("callId"),
        q.getLong("waitMs", 0L))).completion(),
      LocalServices.<JsonObject, JsonObject>serve(vertx, CANCEL, q -> calls.cancel(q.getString("callId"),
        q.getString("by"), roles(q))).completion(),
      LocalServices.<JsonObject, JsonArray>serve(vertx, ENDED, q -> calls.ended()).completion()).mapEmpty();
  }

  @SuppressWarnings("unchecked")
  private static List<String> roles(JsonObject q) {
    return (List<String>) (List<?>) q.getJsonArray("roles", new JsonArray()).getList();
  }
}
