package io.fleetbus.hub.audit;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** The bus ends of {@link AuditService}: one local address per operation under {@link Addresses#HUB_AUDIT}. */
public final class AuditBus {
  static final String APPEND = Addresses.HUB_AUDIT + ".append";
  static final String QUERY = Addresses.HUB_AUDIT + ".query";
  static final String MISSING = Addresses.HUB_AUDIT + ".missing";
  static final String VERIFY = Addresses.HUB_AUDIT + ".verify";
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);
  /** Queries and the chain check read the whole file at worst. */
  private static final long READ_TIMEOUT_MS = 60_000;

  private AuditBus() {
  }

  /** The client end: entries travel as they are (local codec), reads as JSON. */
  public static AuditService client(Vertx vertx) {
    return new AuditService() {
      @Override
      public void append(AuditEntry entry) {
        vertx.eventBus().send(APPEND, entry, LOCAL);
      }

      @Override
      public Future<Void> record(AuditEntry entry) {
        return LocalServices.ask(vertx, APPEND, entry, READ_TIMEOUT_MS).mapEmpty();
      }

      @Override
      public Future<JsonObject> query(JsonObject filter) {
        return LocalServices.ask(vertx, QUERY, filter, READ_TIMEOUT_MS);
      }

      @Override
      public Future<JsonArray> missing(List<String> callIds) {
        return LocalServices.ask(vertx, MISSING, new JsonArray(List.copyOf(callIds)), READ_TIMEOUT_MS);
      }

      @Override
      public Future<JsonObject> verify(List<String> finishedCalls) {
        Object body = finishedCalls == null ? new JsonObject() : new JsonObject().put("finishedCalls",
          new JsonArray(List.copyOf(finishedCalls)));
        return LocalServices.ask(vertx, VERIFY, body, READ_TIMEOUT_MS);
      }
    };
  }

  /** Serves {@code audit} on the local bus: an entry sent without a reply address is appended, one asked is recorded. */
  static Future<Void> serve(Vertx vertx, AuditService audit) {
    var entries = vertx.eventBus().<AuditEntry>localConsumer(APPEND, msg -> {
      if (msg.replyAddress() == null) {
        audit.append(msg.body());
      } else {
        // the reply may leave from the thread that committed the entry (see AuditService#record(entry, answered))
        audit.record(msg.body(), ar -> {
          if (ar.succeeded()) {
            msg.reply(null);
          } else {
            io.fleetbus.shared.bus.FleetReplies.fail(msg, ar.cause());
          }
        });
      }
    });
    var query = LocalServices.<JsonObject, JsonObject>serve(vertx, QUERY, audit::query);
    var missing = LocalServices.<JsonArray, JsonArray>serve(vertx, MISSING,
      ids -> audit.missing(ids.stream().map(String::valueOf).toList()));
    var verify = LocalServices.<JsonObject, JsonObject>serve(vertx, VERIFY, q -> {
      JsonArray finished = q.getJsonArray("finishedCalls");
      return audit.verify(finished == null ? null : finished.stream().map(String::valueOf).toList());
    });
    return Future.all(entries.completion(), query.completion(), missing.completion(), verify.completion()).mapEmpty();
  }
}
