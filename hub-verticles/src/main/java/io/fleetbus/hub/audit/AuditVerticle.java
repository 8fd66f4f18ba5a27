package io.fleetbus.hub.audit;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the audit trail off the call path: entries arrive as hub-local sends (nobody waits), queue up,
 * and are appended in batches by one ordered blocking task at a time; queries and the chain check run
 * in the same order, so they see every entry sent before them.
 */
public final class AuditVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(AuditVerticle.class);
  private static final int MAX_LIMIT = 1000;

  private final Path dbFile;
  private final Queue<AuditEntry> pending = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean flushQueued = new AtomicBoolean();
  private AuditLog log;

  public AuditVerticle(Path dbFile) {
    this.dbFile = dbFile;
  }

  @Override
  public Future<?> start() {
    return vertx.executeBlocking(() -> {
      log = new AuditLog(dbFile);
      return null;
    }).compose(v -> {
      LOG.info("audit log opened [records: {}, head: {}]", log.size(), log.head());
      return vertx.eventBus().<Object>localConsumer(Addresses.HUB_AUDIT, this::onMessage).completion();
    });
  }

  @Override
  public Future<?> stop() {
    return log == null ? Future.succeededFuture() : vertx.executeBlocking(() -> {
      drain();
      log.close();
      return null;
    });
  }

  private void onMessage(Message<Object> msg) {
    String action = msg.headers().get("action");
    if (msg.body() instanceof AuditEntry entry) {
      pending.add(entry);
      if (flushQueued.compareAndSet(false, true)) {
        vertx.executeBlocking(() -> {
          flushQueued.set(false);
          drain();
          return null;
        }).onFailure(err -> LOG.error("audit append failed; entries lost [reason: {}]", err.getMessage()));
      }
    } else if ("query".equals(action)) {
      JsonObject q = (JsonObject) msg.body();
      int limit = Math.min(MAX_LIMIT, Math.max(1, q.getInteger("limit", 100)));
      vertx.executeBlocking(() -> log.query(q.getString("node"), q.getString("tool"), q.getString("principal"),
          q.getString("outcome"), q.getLong("since", 0L), limit))
        .onSuccess(rows -> msg.reply(new JsonObject().put("records", rows).put("count", rows.size())))
        .onFailure(err -> msg.fail(FailureCode.TOOL_FAILED.code, "audit query failed: " + err.getMessage()));
    } else if ("verify".equals(action)) {
      vertx.executeBlocking(() -> log.verify())
        .onSuccess(msg::reply)
        .onFailure(err -> msg.fail(FailureCode.TOOL_FAILED.code, "audit check failed: " + err.getMessage()));
    } else {
      msg.fail(FailureCode.BAD_REQUEST.code, "unknown audit action " + action);
    }
  }

  private void drain() throws java.sql.SQLException {
    List<AuditEntry> batch = new ArrayList<>();
    for (AuditEntry e; (e = pending.poll()) != null; ) {
      batch.add(e);
    }
    log.append(batch);
  }
}
