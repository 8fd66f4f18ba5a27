package io.fleetbus.bench.floor;

import io.vertx.core.VerticleBase;
import io.vertx.core.Future;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The durable floor's far end (issue 38): each request appends one small record to a SQLite file with the hub audit's
 * own settings (sqlite-jdbc, WAL, synchronous=FULL, busy_timeout, secure_delete: one fsync of the WAL per commit) and
 * is answered from the thread that committed it, only after the commit. One record per commit: a batch of one, what a
 * lone call's audit costs. The answer carries how long the insert and its commit took here ({@code commitNanos}), so
 * the harness can tell the commit from what is around it.
 * <p>Two deployments: {@link #ADDRESS} on an event-loop verticle that commits on its own loop — a measuring fixture
 * with nothing else on that loop, the floor plus one durable commit and nothing more — and {@link #HOP_ADDRESS} on a
 * worker verticle, the same plus the hand-off to a blocking thread that a server must make (the audit's own: event
 * loop to its writer thread; measured at 0.1-0.2 ms on a loaded 2-core machine, as much as the fsync).
 */
public final class DurableReplier extends VerticleBase {
  /** The durable floor's address (commit on the receiving event loop); no fleetbus verticle uses it. */
  public static final String ADDRESS = "bench.floor.durable";
  /** The same on a worker verticle: the durable floor plus a thread hand-off. */
  public static final String HOP_ADDRESS = "bench.floor.durable.hop";
  /**
   * The raw fsync, timed here on the thread that commits, one per request like the commits ({@link RawFsync}; the
   * answer's {@code commitNanos} is the write + fsync). Timed in the harness JVM instead, 500 back to back, the same
   * fsync took 0.92 ms at p50 against 0.27 ms for SQLite's whole commit here (a run of 2026-11-27, load average 20).
   */
  public static final String FSYNC_ADDRESS = "bench.floor.fsync";

  private final Path dbFile;
  private final String address;
  private Connection connection;
  private PreparedStatement insert;
  private RawFsync fsync;

  public DurableReplier(Path dbFile, String address) {
    this.dbFile = dbFile;
    this.address = address;
  }

  @Override
  public Future<?> start() throws Exception {
    Files.createDirectories(dbFile.toAbsolutePath().getParent());
    connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile.toAbsolutePath());
    try (Statement s = connection.createStatement()) {
      // the pragmas of the hub's store (hub-verticles store/Sqlite.open), which the audit log opens its file with
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("PRAGMA synchronous=FULL");
      s.execute("PRAGMA busy_timeout=5000");
      s.execute("PRAGMA secure_delete=ON");
      s.execute("CREATE TABLE IF NOT EXISTS floor (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, call_id TEXT)");
    }
    insert = connection.prepareStatement("INSERT INTO floor (at, call_id) VALUES (?, ?)");
    Future<Void> fsyncs = Future.succeededFuture();
    if (ADDRESS.equals(address)) {
      fsync = new RawFsync(dbFile.toAbsolutePath().getParent());
      fsyncs = vertx.eventBus().<JsonObject>consumer(FSYNC_ADDRESS, this::fsync).completion();
    }
    return fsyncs.compose(v -> vertx.eventBus().<JsonObject>consumer(address, this::append).completion());
  }

  /** On this verticle's thread: one WAL-sized frame written and fsynced, then the answer from the same thread. */
  private void fsync(Message<JsonObject> msg) {
    try {
      msg.reply(new JsonObject().put("commitNanos", fsync.block(1)[0]));
    } catch (java.io.IOException e) {
      msg.fail(500, "raw fsync failed: " + e.getMessage());
    }
  }

  /** On this verticle's thread: insert (autocommit: one transaction, one fsync), then the answer from the same thread. */
  private void append(Message<JsonObject> msg) {
    long t0 = System.nanoTime();
    try {
      insert.setLong(1, System.currentTimeMillis());
      insert.setString(2, msg.body().getString("callId"));
      insert.executeUpdate();
    } catch (SQLException e) {
      msg.fail(500, "durable floor: append not committed: " + e.getMessage());
      return;
    }
    msg.reply(new JsonObject().put("commitNanos", System.nanoTime() - t0));
  }

  @Override
  public Future<?> stop() throws Exception {
    if (connection != null) {
      connection.close();
    }
    if (fsync != null) {
      fsync.close();
    }
    return Future.succeededFuture();
  }
}
