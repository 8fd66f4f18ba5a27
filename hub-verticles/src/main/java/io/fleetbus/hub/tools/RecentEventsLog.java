package io.fleetbus.hub.tools;

import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;

/**
 * The last {@value #CAPACITY} fleet events this hub saw, in memory (lost on restart). Confined to the
 * verticle that created it: the consumer and the queries run on that verticle's event loop.
 */
public final class RecentEventsLog implements SiteLog {
  static final int CAPACITY = 2000;

  private final Deque<JsonObject> events = new ArrayDeque<>();
  private MessageConsumer<Object> consumer;

  /** Starts listening to fleet.events on the calling verticle's context. */
  public Future<Void> start(Vertx vertx) {
    consumer = vertx.eventBus().consumer(Addresses.EVENTS, msg -> {
      if (msg.body() instanceof JsonObject e) {
        add(e, System.currentTimeMillis());
      }
    });
    return consumer.completion();
  }

  void add(JsonObject event, long at) {
    JsonObject entry = event.copy();
    String type = entry.getString("type", "event");
    entry.put("action", type).put("level", entry.getString("level", levelOf(type, entry))).put("at", at)
      .put("time", Instant.ofEpochMilli(at).toString());
    events.addFirst(entry);
    if (events.size() > CAPACITY) {
      events.removeLast();
    }
  }

  /** Going offline and refused or expired approvals are warnings; failed calls errors; the rest info. */
  static String levelOf(String type, JsonObject e) {
    if (type.equals("node.offline")) {
      return "warning";
    }
    if (type.equals("approval.decided") && !"approved".equals(e.getString("status"))) {
      return "warning";
    }
    if (type.endsWith(".failed") || "error".equals(e.getString("status"))) {
      return "error";
    }
    return "info";
  }

  @Override
  public Future<JsonArray> query(String level, double hours, int limit, String action) {
    long since = System.currentTimeMillis() - (long) (hours * 3_600_000);
    JsonArray out = new JsonArray();
    for (Iterator<JsonObject> it = events.iterator(); it.hasNext() && out.size() < limit; ) {
      JsonObject e = it.next();
      if (e.getLong("at") < since) {
        break;
      }
      if ((level == null || level.equals(e.getString("level"))) && (action == null || action.equals(e.getString("action")))) {
        out.add(e.copy());
      }
    }
    return Future.succeededFuture(out);
  }

  public Future<Void> stop() {
    return consumer == null ? Future.succeededFuture() : consumer.unregister();
  }
}
