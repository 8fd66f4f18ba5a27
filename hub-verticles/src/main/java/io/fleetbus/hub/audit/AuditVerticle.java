package io.fleetbus.hub.audit;

import io.fleetbus.hub.store.GroupCommit;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the audit trail with group commit: entries queue up on this verticle's event loop and are appended
 * in batches (one transaction, one fsync each) by ordered blocking tasks; an entry whose sender waits (a call's
 * end, {@link AuditEntry#record}) is acknowledged only after its batch is committed. A batch goes
 * {@code batchMs} after its first entry or once it holds {@code batchMax}; what arrives while one is written
 * goes right after it. Queries and the chain check run in the same order, after every entry sent before them.
 * Fails closed (issue 34, {@link AuditWriter}): while the audit cannot be written the {@link AuditGate} is closed and
 * the hub takes no call; the disk is checked every {@code probeMs} and the hub resumes by itself.
 */
public final class AuditVerticle extends VerticleBase implements AuditService {
  private static final Logger LOG = LoggerFactory.getLogger(AuditVerticle.class);
  private static final int MAX_LIMIT = 1000;
  /** The hub-local map where this writer says whether a recorded entry waits for its commit. */
  static final String SETTINGS = "fleetbus.audit.settings";

  private final Path dbFile;
  private final AuditSettings settings;
  private AuditLog log;
  private AuditWriter writer;
  private GroupCommit<AuditEntry> batches;
  private long probe = -1;
  private boolean checking;

  public AuditVerticle(Path dbFile) {
    this(dbFile, AuditSettings.DEFAULT);
  }

  public AuditVerticle(Path dbFile, AuditSettings settings) {
    this.dbFile = dbFile;
    this.settings = settings;
  }

  @Override
  public Future<?> start() {
    vertx.sharedData().getLocalMap(SETTINGS).put("answerAfterCommit", settings.answerAfterCommit());
    return vertx.executeBlocking(() -> {
      log = new AuditLog(dbFile);
      writer = new AuditWriter(vertx, log, new AuditDisk(dbFile.toAbsolutePath().getParent(), settings.minFreeBytes(),
        settings.reserveBytes()));
      writer.open();
      return null;
    }).compose(v -> {
      batches = new GroupCommit<>(vertx, "audit", settings.batchMs(), settings.batchMax(), writer::write);
      probe = vertx.setPeriodic(settings.probeMs(), t -> checkDisk());
      LOG.info("audit log opened [records: {}, head: {}, batchMs: {}, batchMax: {}, answerAfterCommit: {}]", log.size(),
        log.head(), settings.batchMs(), settings.batchMax(), settings.answerAfterCommit());
      return AuditBus.serve(vertx, this);
    });
  }

  /** Transactions committed so far (one per batch). */
  long commits() {
    return log == null ? 0 : log.commits();
  }

  /** The disk check, in the same order as the batches (one at a time; a slow disk does not pile them up). */
  private void checkDisk() {
    if (checking) {
      return;
    }
    checking = true;
    vertx.executeBlocking(() -> {
      writer.check();
      return null;
    }).onComplete(ar -> checking = false);
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(probe);
    if (log == null) {
      return Future.succeededFuture();
    }
    return batches.drain().eventually(() -> vertx.executeBlocking(() -> {
      log.close();
      return null;
    }));
  }

  @Override
  public void append(AuditEntry entry) {
    batches.add(entry);
  }

  @Override
  public Future<Void> record(AuditEntry entry) {
    return batches.commit(entry).recover(err -> Future.failedFuture(notWritten(err)));
  }

  /** The answer goes from the worker that committed the entry, not by way of this verticle's event loop. */
  @Override
  public void record(AuditEntry entry, io.vertx.core.Handler<io.vertx.core.AsyncResult<Void>> answered) {
    batches.commit(entry, ar -> answered.handle(ar.succeeded() ? ar : Future.failedFuture(notWritten(ar.cause()))));
  }

  private static Throwable notWritten(Throwable err) {
    return FailureCode.TOOL_FAILED.exception(err.getMessage().startsWith("audit unavailable") ? err.getMessage()
      : "the audit record could not be written: " + err.getMessage());
  }

  @Override
  public Future<JsonObject> query(JsonObject q) {
    int limit = Math.min(MAX_LIMIT, Math.max(1, q.getInteger("limit", 100)));
    batches.flushNow();
    return vertx.executeBlocking(() -> log.query(q.getString("node"), q.getString("tool"), q.getString("principal"),
        q.getString("outcome"), q.getLong("since", 0L), limit))
      .map(rows -> new JsonObject().put("records", rows).put("count", rows.size()))
      .recover(err -> failed("audit query failed", err));
  }

  @Override
  public Future<JsonArray> missing(List<String> callIds) {
    batches.flushNow();
    return vertx.executeBlocking(() -> log.missing(callIds)).recover(err -> failed("audit lookup failed", err));
  }

  @Override
  public Future<JsonObject> verify(List<String> finished) {
    batches.flushNow();
    return vertx.executeBlocking(() -> {
      JsonObject chain = log.verify();
      if (finished != null) {
        JsonArray missing = log.missing(finished);
        chain.put("callsChecked", finished.size()).put("unaudited", missing);
        if (!missing.isEmpty()) {
          chain.put("ok", false);
        }
      }
      return chain;
    }).recover(err -> failed("audit check failed", err));
  }

  private static <T> Future<T> failed(String what, Throwable err) {
    return Future.failedFuture(FailureCode.TOOL_FAILED.exception(what + ": " + err.getMessage()));
  }
}
