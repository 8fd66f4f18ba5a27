package io.fleetbus.hub.audit;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The audit trail as the rest of the hub sees it (served by {@link AuditVerticle}, reached through {@link AuditBus}).
 * Reads run after every entry sent before them.
 */
public interface AuditService {
  /** Queues an entry; nobody waits for its commit (administrative acts whose answer does not depend on it). */
  void append(AuditEntry entry);

  /** Succeeds once the entry is committed with its batch; fails with 500 when it could not be written. */
  Future<Void> record(AuditEntry entry);

  /**
   * {@link #record} for an answer that only travels on (the bus reply to whoever asked): {@code answered} may hear on
   * the thread that committed the entry, which saves a hand-off.
   */
  default void record(AuditEntry entry, io.vertx.core.Handler<io.vertx.core.AsyncResult<Void>> answered) {
    record(entry).onComplete(answered);
  }

  /**
   * Entries matching {@code filter} (fields {@code node}, {@code tool}, {@code principal}, {@code outcome} — each
   * optional — {@code since} epoch ms and {@code limit} 1..1000), newest first: {@code {records, count}}.
   */
  Future<JsonObject> query(JsonObject filter);

  /** Those of {@code callIds} that have no audit entry. */
  Future<JsonArray> missing(List<String> callIds);

  /**
   * The hash-chain check; with {@code finishedCalls} (may be null) also names in {@code unaudited} each finished call
   * without its entry, which makes the check fail.
   */
  Future<JsonObject> verify(List<String> finishedCalls);
}
