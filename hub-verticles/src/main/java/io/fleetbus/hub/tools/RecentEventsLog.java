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
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RecentEventsLog.class);
  static final int CAPACITY = 2000;
  /** What went wrong on a node without anyone asking: a warning here and in the hub's log. */
  private static final java.util.Set<String> NODE_TROUBLE = java.util.Set.of("process.crashed", "job.stalled");

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
    if (NODE_TROUBLE.contains(type)) {
      // one line per event, what it is about (never the whole event: it may grow fields nobody vetted for a log)
      LOG.warn("{} [node: {}, process: {}, job: {}, exitCode: {}, relaunchInMs: {}, silentForMs: {}]", type,
        entry.getString("nodeId"), entry.getValue("name"), entry.getValue("jobId"), entry.getValue("exitCode"),
        entry.getValue("relaunchInMs"), entry.getValue("silentForMs"));
    }
    events.addFirst(entry);
    if (events.size() > CAPACITY) {
      events.removeLast();
    }
  }

  /**
   * Going offline, a crashed managed process, a stalled job and refused or expired approvals are warnings; failures
   * errors; the rest info.
   */
  static String levelOf(String type, JsonObject e) {
    if (type.equals("node.offline") || NODE_TROUBLE.contains(type)) {
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
