package io.fleetbus.hub.tools;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;

/**
 * Where get_site_logs reads fleet activity. Today {@link RecentEventsLog} keeps the hub's recent
 * {@code fleet.events} in memory; an audit-backed implementation (durable, hash-chained) replaces it
 * without touching the tool.
 */
public interface SiteLog {
  /**
   * Entries newest first.
   *
   * @param level  error, warning or info; null for all
   * @param action an event type such as node.offline; null for all
   */
  Future<JsonArray> query(String level, double hours, int limit, String action);
}
