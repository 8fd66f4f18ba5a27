package io.fleetbus.hub.audit;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the audit trail with group commit: entries queue up and are appended in batches (one transaction, one fsync
 * each); an entry whose sender waits (a call's end, {@link AuditEntry#record}) is acknowledged only after its batch is
 * committed. A batch goes {@code batchMs} after its first entry or once it holds {@code batchMax}; what arrives while
 * one is written goes right after it. Queries and the chain check run in the same order, after every entry sent before
 * them.
 * <p>
 * The writer is a worker verticle ({@link #deploy}): its handlers run in order on one worker thread at a time and
 * write SQLite themselves, so an entry costs two thread hand-offs (to the writer, the acknowledgement back) instead of
 * four (to an event loop, to a worker for the write, back, and back to the sender), issue 17. A batch is written by a
 * task queued behind the entries already delivered: everything that arrived while the last batch was written joins
 * the next one.
 */
public final class AuditVerticle extends VerticleBase implements AuditService {
  private static final Logger LOG = LoggerFactory.getLogger(AuditVerticle.class);
  private static final int MAX_LIMIT = 1000;
  /** The hub-local map where this writer says whether a recorded entry waits for its commit. */
  static final String SETTINGS = "fleetbus.audit.settings";

  private record Queued(AuditEntry entry, Promise<Void> waiter) {
  }

  private final Path dbFile;
  private final AuditSettings settings;
  private final ArrayDeque<Queued> queue = new ArrayDeque<>();
  /** A batch is queued on this verticle's context (behind the entries delivered so far). */
  private boolean flushQueued;
  private long timer = -1;
  private AuditLog log;

  public AuditVerticle(Path dbFile) {
    this(dbFile, AuditSettings.DEFAULT);
  }

  public AuditVerticle(Path dbFile, AuditSettings settings) {
    this.dbFile = dbFile;
    this.settings = settings;
  }

  /** Deploys {@code writer} as it must run: a worker verticle (it blocks on SQLite in its handlers). */
  public static Future<String> deploy(Vertx vertx, AuditVerticle writer) {
    return vertx.deployVerticle(writer, new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER));
  }

  @Override
  public Future<?> start() throws Exception {
    if (!context.isWorkerContext()) {
      return Future.failedFuture("the audit writer blocks on SQLite: deploy it with AuditVerticle.deploy (a worker)");
    }
    vertx.sharedData().getLocalMap(SETTINGS).put("answerAfterCommit", settings.answerAfterCommit());
    log = new AuditLog(dbFile);
    LOG.info("audit log opened [records: {}, head: {}, batchMs: {}, batchMax: {}, answerAfterCommit: {}]", log.size(),
      log.head(), settings.batchMs(), settings.batchMax(), settings.answerAfterCommit());
    return AuditBus.serve(vertx, this);
  }

  /** Transactions committed so far (one per batch). */
  long commits() {
    return log == null ? 0 : log.commits();
  }

  @Override
  public Future<?> stop() throws Exception {
    if (log != null) {
      flushNow();
      log.close();
    }
    return Future.succeededFuture();
  }

  @Override
  public void append(AuditEntry entry) {
    queue.add(new Queued(entry, null));
    schedule();
  }

  @Override
  public Future<Void> record(AuditEntry entry) {
    Promise<Void> committed = Promise.promise();
    queue.add(new Queued(entry, committed));
    schedule();
    return committed.future();
  }

  @Override
  public Future<JsonObject> query(JsonObject q) {
    int limit = Math.min(MAX_LIMIT, Math.max(1, q.getInteger("limit", 100)));
    return read("audit query failed", () -> {
      JsonArray rows = log.query(q.getString("node"), q.getString("tool"), q.getString("principal"),
        q.getString("outcome"), q.getLong("since", 0L), limit);
      return new JsonObject().put("records", rows).put("count", rows.size());
    });
  }

  @Override
  public Future<JsonArray> missing(List<String> callIds) {
    return read("audit lookup failed", () -> log.missing(callIds));
  }

  @Override
  public Future<JsonObject> verify(List<String> finished) {
    return read("audit check failed", () -> {
      JsonObject chain = log.verify();
      if (finished != null) {
        JsonArray missing = log.missing(finished);
        chain.put("callsChecked", finished.size()).put("unaudited", missing);
        if (!missing.isEmpty()) {
          chain.put("ok", false);
        }
      }
      return chain;
    });
  }

  /** A read, after every entry queued before it is committed. */
  private <T> Future<T> read(String what, Callable<T> reading) {
    flushNow();
    try {
      return Future.succeededFuture(reading.call());
    } catch (Exception err) {
      return Future.failedFuture(FailureCode.TOOL_FAILED.exception(what + ": " + err.getMessage()));
    }
  }

  /**
   * A batch is due when it is full, or {@code batchMs} after its first entry ({@code batchMs} 0: as soon as the
   * entries delivered before it are queued); never two waiting at once.
   */
  private void schedule() {
    if (flushQueued) {
      return;
    }
    if (queue.size() >= settings.batchMax() || settings.batchMs() == 0) {
      flushQueued = true;
      context.runOnContext(v -> {
        flushQueued = false;
        flushNow();
      });
    } else if (timer < 0) {
      timer = vertx.setTimer(settings.batchMs(), t -> {
        timer = -1;
        flushNow();
      });
    }
  }

  /** Writes what is queued, {@code batchMax} entries a transaction. */
  private void flushNow() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
    while (!queue.isEmpty()) {
      List<Queued> batch = new ArrayList<>(Math.min(queue.size(), settings.batchMax()));
      while (!queue.isEmpty() && batch.size() < settings.batchMax()) {
        batch.add(queue.poll());
      }
      write(batch);
    }
  }

  /** Appends the batch in one transaction, then answers its waiters. */
  private void write(List<Queued> batch) {
    List<AuditEntry> entries = batch.stream().map(Queued::entry).toList();
    Exception failed = null;
    try {
      log.append(entries);
    } catch (Exception e) {
      failed = e;
      LOG.error("audit append failed [entries: {}, reason: {}]", entries.size(), e.getMessage());
    }
    for (Queued q : batch) {
      if (q.waiter() == null) {
        continue;
      }
      if (failed == null) {
        q.waiter().complete();
      } else {
        q.waiter().fail(FailureCode.TOOL_FAILED.exception("the audit record could not be written: " + failed.getMessage()));
      }
    }
  }
}
