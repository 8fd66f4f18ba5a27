package io.fleetbus.hub.approval;

import io.fleetbus.hub.consent.Approval;
import io.fleetbus.hub.store.Sqlite;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.trust.CanonicalJson;
import io.fleetbus.shared.trust.SealedBox;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Approvals in the hub's SQLite file (WAL, synchronous=FULL). Who, where, which tool, the args digest,
 * status and times are plain columns; the exact call, its summary and the decider's reason are sealed
 * with the hub's store key, since arguments may carry secrets the file must not show.
 */
public final class SqliteApprovalStore implements ApprovalStore, AutoCloseable {
  private final Vertx vertx;
  private final byte[] storeKey;
  private final Connection connection;

  public SqliteApprovalStore(Vertx vertx, Path dbFile, byte[] storeKey) throws SQLException, IOException {
    this.vertx = vertx;
    this.storeKey = storeKey.clone();
    connection = Sqlite.open(dbFile);
    try (Statement s = connection.createStatement()) {
      s.execute("""
        CREATE TABLE IF NOT EXISTS approvals (
          approval_id TEXT PRIMARY KEY, call_id TEXT NOT NULL, requester TEXT, node_id TEXT, tool TEXT,
          args_sha256 TEXT, status TEXT NOT NULL, requested_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
          decided_by TEXT, decided_at INTEGER NOT NULL DEFAULT 0, sealed TEXT NOT NULL
        )""");
      s.execute("CREATE INDEX IF NOT EXISTS approvals_status ON approvals (status, requested_at)");
    }
  }

  @Override
  public Future<Void> save(Approval a) {
    return vertx.executeBlocking(() -> {
      write(a);
      return null;
    });
  }

  @Override
  public Future<List<Approval>> load(int recentDecided) {
    return vertx.executeBlocking(() -> read(recentDecided));
  }

  synchronized void write(Approval a) throws SQLException {
    String sealed = SealedBox.seal(storeKey, "approval", a.approvalId(), new JsonObject().put("call", a.call().toJson())
      .put("summary", a.summary()).put("reason", a.reason()).put("confirm", a.confirm()));
    try (PreparedStatement ps = connection.prepareStatement("""
        INSERT INTO approvals (approval_id, call_id, requester, node_id, tool, args_sha256, status, requested_at,
          expires_at, decided_by, decided_at, sealed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(approval_id) DO UPDATE SET status = excluded.status, decided_by = excluded.decided_by,
          decided_at = excluded.decided_at, sealed = excluded.sealed""")) {
      ps.setString(1, a.approvalId());
      ps.setString(2, a.call().callId());
      ps.setString(3, a.call().principal());
      ps.setString(4, a.call().nodeId());
      ps.setString(5, a.call().tool());
      ps.setString(6, CanonicalJson.sha256(a.call().args()));
      ps.setString(7, a.status());
      ps.setLong(8, a.requestedAt());
      ps.setLong(9, a.expiresAt());
      ps.setString(10, a.decidedBy());
      ps.setLong(11, a.decidedAt());
      ps.setString(12, sealed);
      ps.executeUpdate();
    }
  }

  synchronized List<Approval> read(int recentDecided) throws SQLException {
    List<Approval> out = new ArrayList<>();
    try (PreparedStatement ps = connection.prepareStatement("""
        SELECT approval_id, status, requested_at, expires_at, decided_by, decided_at, sealed FROM (
          SELECT * FROM approvals WHERE status = 'pending'
          UNION ALL
          SELECT * FROM (SELECT * FROM approvals WHERE status <> 'pending' ORDER BY requested_at DESC LIMIT ?)
        ) ORDER BY requested_at""")) {
      ps.setInt(1, recentDecided);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          JsonObject open = SealedBox.open(storeKey, "approval", rs.getString(1), rs.getString(7));
          out.add(new Approval(rs.getString(1), ToolCall.fromJson(open.getJsonObject("call")), open.getString("summary"),
            rs.getLong(3), rs.getLong(4), rs.getString(2), rs.getString(5), open.getString("reason"), rs.getLong(6),
            open.getString("confirm")));
        }
      }
    }
    return out;
  }

  @Override
  public synchronized void close() throws SQLException {
    connection.close();
  }
}
