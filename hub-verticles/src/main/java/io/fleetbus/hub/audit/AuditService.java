package io.fleetbus.hub.audit;

import io.fleetbus.shared.bus.Ask;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The audit trail as the rest of the hub sees it (served by {@link AuditVerticle}, reached through {@link AuditBus}).
 * Reads run after every entry sent before them.
 */
public interface AuditService {
  /** Queries and the chain check read the whole file at worst. */
  long READ_TIMEOUT_MS = 60_000;

  /** Queues an entry; nobody waits for its commit (administrative acts whose answer does not depend on it). */
  void append(AuditEntry entry);

  /** Succeeds once the entry is committed with its batch; fails with 500 when it could not be written. */
  default Future<Void> record(AuditEntry entry) {
    Promise<Void> committed = Promise.promise();
    record(entry, committed::handle);
    return committed.future();
  }

  /**
   * {@link #record(AuditEntry)} for an answer that only travels on (the bus reply to whoever asked): {@code answered}
   * may hear on the thread that committed the entry, which saves a hand-off.
   */
  @Ask(timeoutMs = READ_TIMEOUT_MS)
  void record(AuditEntry entry, Handler<AsyncResult<Void>> answered);

  /**
   * Entries matching {@code filter} (fields {@code node}, {@code tool}, {@code principal}, {@code outcome} — each
   * optional — {@code since} epoch ms and {@code limit} 1..1000), newest first: {@code {records, count}}.
   */
  @Ask(timeoutMs = READ_TIMEOUT_MS)
  Future<JsonObject> query(JsonObject filter);

  /** Those of {@code callIds} that have no audit entry. */
  @Ask(timeoutMs = READ_TIMEOUT_MS)
  Future<JsonArray> missing(List<String> callIds);

  /**
   * The hash-chain check; with {@code finishedCalls} (may be null) also names in {@code unaudited} each finished call
   * without its entry, which makes the check fail.
   */
  @Ask(timeoutMs = READ_TIMEOUT_MS)
  Future<JsonObject> verify(List<String> finishedCalls);
}
