package io.fleetbus.hub.audit;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the audit trail with group commit: entries queue up on this verticle's event loop and are appended
 * in batches (one transaction, one fsync each) by ordered blocking tasks; an entry whose sender waits (a call's
 * end, {@link AuditEntry#record}) is acknowledged only after its batch is committed. A batch goes
 * {@code batchMs} after its first entry or once it holds {@code batchMax}; what arrives while one is written
 * goes right after it. Queries and the chain check run in the same order, after every entry sent before them.
 */
public final class AuditVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(AuditVerticle.class);
  private static final int MAX_LIMIT = 1000;
  /** The hub-local map where this writer says whether a recorded entry waits for its commit. */
  static final String SETTINGS = "fleetbus.audit.settings";

  private record Queued(AuditEntry entry, Message<Object> waiter) {
  }

  private final Path dbFile;
  private final AuditSettings settings;
  private final ArrayDeque<Queued> queue = new ArrayDeque<>();
  private int writing;
  private long timer = -1;
  private AuditLog log;

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
      return null;
    }).compose(v -> {
      LOG.info("audit log opened [records: {}, head: {}, batchMs: {}, batchMax: {}, answerAfterCommit: {}]", log.size(),
        log.head(), settings.batchMs(), settings.batchMax(), settings.answerAfterCommit());
      return vertx.eventBus().<Object>localConsumer(Addresses.HUB_AUDIT, this::onMessage).completion();
    });
  }

  /** Transactions committed so far (one per batch). */
  long commits() {
    return log == null ? 0 : log.commits();
  }

  @Override
  public Future<?> stop() {
    if (log == null) {
      return Future.succeededFuture();
    }
    List<Queued> rest = take();
    return write(rest).eventually(() -> vertx.executeBlocking(() -> {
      log.close();
      return null;
    }));
  }

  private void onMessage(Message<Object> msg) {
    String action = msg.headers().get("action");
    if (msg.body() instanceof AuditEntry entry) {
      queue.add(new Queued(entry, msg.replyAddress() != null ? msg : null));
      schedule();
    } else if ("query".equals(action)) {
      JsonObject q = (JsonObject) msg.body();
      int limit = Math.min(MAX_LIMIT, Math.max(1, q.getInteger("limit", 100)));
      flushNow();
      vertx.executeBlocking(() -> log.query(q.getString("node"), q.getString("tool"), q.getString("principal"),
          q.getString("outcome"), q.getLong("since", 0L), limit))
        .onSuccess(rows -> msg.reply(new JsonObject().put("records", rows).put("count", rows.size())))
        .onFailure(err -> msg.fail(FailureCode.TOOL_FAILED.code, "audit query failed: " + err.getMessage()));
    } else if ("missing".equals(action)) {
      JsonArray ids = ((JsonObject) msg.body()).getJsonArray("callIds", new JsonArray());
      flushNow();
      vertx.executeBlocking(() -> log.missing(ids.stream().map(String::valueOf).toList()))
        .onSuccess(missing -> msg.reply(new JsonObject().put("missing", missing)))
        .onFailure(err -> msg.fail(FailureCode.TOOL_FAILED.code, "audit lookup failed: " + err.getMessage()));
    } else if ("verify".equals(action)) {
      JsonArray finished = msg.body() instanceof JsonObject q ? q.getJsonArray("finishedCalls") : null;
      flushNow();
      vertx.executeBlocking(() -> {
        JsonObject chain = log.verify();
        if (finished != null) {
          JsonArray missing = log.missing(finished.stream().map(String::valueOf).toList());
          chain.put("callsChecked", finished.size()).put("unaudited", missing);
          if (!missing.isEmpty()) {
            chain.put("ok", false);
          }
        }
        return chain;
      }).onSuccess(msg::reply)
        .onFailure(err -> msg.fail(FailureCode.TOOL_FAILED.code, "audit check failed: " + err.getMessage()));
    } else {
      msg.fail(FailureCode.BAD_REQUEST.code, "unknown audit action " + action);
    }
  }

  /** A batch is due when it is full, or {@code batchMs} after its first entry; never two waiting at once. */
  private void schedule() {
    if (writing > 0) {
      return;
    }
    if (queue.size() >= settings.batchMax() || settings.batchMs() == 0) {
      flushNow();
    } else if (timer < 0) {
      timer = vertx.setTimer(settings.batchMs(), t -> {
        timer = -1;
        flushNow();
      });
    }
  }

  private void flushNow() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
    if (queue.isEmpty()) {
      return;
    }
    writing++;
    write(take()).onComplete(ar -> {
      writing--;
      if (!queue.isEmpty()) {
        // these waited for the batch before them: they go now
        flushNow();
      }
    });
  }

  private List<Queued> take() {
    List<Queued> batch = new ArrayList<>(queue);
    queue.clear();
    return batch;
  }

  /** Appends the batch in one transaction (ordered after every earlier task), then answers its waiters. */
  private Future<Void> write(List<Queued> batch) {
    if (batch.isEmpty()) {
      return Future.succeededFuture();
    }
    List<AuditEntry> entries = batch.stream().map(Queued::entry).toList();
    return vertx.<Void>executeBlocking(() -> {
      log.append(entries);
      return null;
    }).onComplete(ar -> {
      if (ar.failed()) {
        LOG.error("audit append failed [entries: {}, reason: {}]", entries.size(), ar.cause().getMessage());
      }
      for (Queued q : batch) {
        if (q.waiter() == null) {
          continue;
        }
        if (ar.succeeded()) {
          q.waiter().reply(null);
        } else {
          q.waiter().fail(FailureCode.TOOL_FAILED.code, "the audit record could not be written: " + ar.cause().getMessage());
        }
      }
    });
  }
}
