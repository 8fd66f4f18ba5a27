package io.fleetbus.bench.floor;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The durable floor's far end (issue 38): each request appends one small record to a SQLite file with the hub audit's
 * own settings (sqlite-jdbc, WAL, synchronous=FULL, busy_timeout, secure_delete: one fsync of the WAL per commit) and
 * is answered from the thread that committed it, only after the commit. One record per commit: a batch of one, what a
 * lone call's audit costs. The answer carries how long the insert and its commit took here ({@code commitNanos}), so
 * the harness can tell the commit from what is around it.
 * <p>Two deployments: {@link #ADDRESS} started {@linkplain #startHere here}, on the context the floor server's cluster
 * start completed on, serving the floor's echo ({@link FloorServerMain#ECHO}) too, so the floor and the durable floor
 * take the same path through the same event loop and differ by the commit alone (as a verticle on an event loop of its
 * own, each durable request paid two more hand-offs between loops than the echo, ~0.09 ms on a 2-core VM); and
 * {@link #HOP_ADDRESS} on a worker verticle, the same plus the hand-off to a blocking thread that a server must make
 * (the audit's own: event loop to its writer thread).
 */
public final class DurableReplier extends VerticleBase {
  /** The durable floor's address (commit on the receiving event loop); no fleetbus verticle uses it. */
  public static final String ADDRESS = "bench.floor.durable";
  /** The same on a worker verticle: the durable floor plus a thread hand-off. */
  public static final String HOP_ADDRESS = "bench.floor.durable.hop";
  /**
   * The raw fsync, timed here on the loop that commits, one per request like the commits ({@link RawFsync}; the answer's
   * {@code commitNanos} is the write + fsync). Timed in the harness JVM instead, 500 back to back, the same fsync took
   * 0.92 ms at p50 against 0.27 ms for SQLite's whole commit here (a run of 2026-11-27, load average 20).
   */
  public static final String FSYNC_ADDRESS = "bench.floor.fsync";
  /** Control: the answer after a busy wait as long as the recent commits here (the loop keeps its core, no syscall). */
  public static final String SPIN_ADDRESS = "bench.floor.spin";
  /** Control: the answer after the loop's thread slept as long as the recent commits (it leaves its core, no disk). */
  public static final String PARK_ADDRESS = "bench.floor.park";

  private final Path dbFile;
  private final String address;
  /** The last commits' times here: the controls wait as long as their median. */
  private final long[] recentCommits = new long[64];
  private int commitsSeen;
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
    // every consumer made here, on this thread: all of them on this replier's context
    List<Future<Void>> registered = new ArrayList<>();
    if (ADDRESS.equals(address)) {
      fsync = new RawFsync(dbFile.toAbsolutePath().getParent());
      registered.add(consume(FloorServerMain.ECHO, msg -> msg.reply(msg.body())));
      registered.add(consume(FSYNC_ADDRESS, this::fsync));
      registered.add(consume(SPIN_ADDRESS, msg -> waitLikeACommit(msg, true)));
      registered.add(consume(PARK_ADDRESS, msg -> waitLikeACommit(msg, false)));
    }
    registered.add(consume(address, this::append));
    return Future.all(registered);
  }

  /**
   * Starts this replier on the calling thread's context instead of deploying it on an event loop of its own: the
   * floor server calls it where the cluster's start completed, the context its event bus delivers on without a
   * hand-off between loops, so the floor's echo (served here too) and the durable floor take the same path.
   */
  public Future<?> startHere(Vertx owner) throws Exception {
    init(owner, owner.getOrCreateContext());
    return start();
  }

  private Future<Void> consume(String at, io.vertx.core.Handler<Message<JsonObject>> handler) {
    return vertx.eventBus().<JsonObject>consumer(at, handler).completion();
  }

  /** On this verticle's thread: one WAL frame written and fsynced, then the answer from the same thread. */
  private void fsync(Message<JsonObject> msg) {
    try {
      msg.reply(new JsonObject().put("commitNanos", fsync.block(1)[0]));
    } catch (java.io.IOException e) {
      msg.fail(500, "raw fsync failed: " + e.getMessage());
    }
  }

  /** A wait as long as the recent commits, with no disk: spinning on the core, or asleep off it; then the answer. */
  private void waitLikeACommit(Message<JsonObject> msg, boolean spin) {
    long[] recent = Arrays.copyOf(recentCommits, Math.max(1, Math.min(commitsSeen, recentCommits.length)));
    Arrays.sort(recent);
    long wait = recent[recent.length / 2];
    long t0 = System.nanoTime();
    if (!spin) {
      LockSupport.parkNanos(wait);
    }
    while (System.nanoTime() - t0 < wait) {
      Thread.onSpinWait();
    }
    msg.reply(new JsonObject().put("commitNanos", System.nanoTime() - t0));
  }

  /** On this verticle's thread: insert (autocommit: one transaction, one fsync), then the answer from the same thread. */
  private void append(Message<JsonObject> msg) {
    String callId = msg.body().getString("callId"); // the body decoded outside the timing, as the echo's is
    long t0 = System.nanoTime();
    try {
      insert.setLong(1, System.currentTimeMillis());
      insert.setString(2, callId);
      insert.executeUpdate();
    } catch (SQLException e) {
      msg.fail(500, "durable floor: append not committed: " + e.getMessage());
      return;
    }
    long took = System.nanoTime() - t0;
    recentCommits[commitsSeen++ % recentCommits.length] = took;
    msg.reply(new JsonObject().put("commitNanos", took));
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
