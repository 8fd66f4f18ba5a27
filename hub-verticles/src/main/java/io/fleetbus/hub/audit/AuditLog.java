package io.fleetbus.hub.audit;

import io.fleetbus.hub.store.Sqlite;
import io.fleetbus.shared.trust.CanonicalJson;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.SecretMasker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * The append-only audit table: each record carries the SHA-256 of the one before, so changing or
 * removing a record breaks the chain from there on ({@link #verify()} names the first broken link).
 * Triggers refuse UPDATE and DELETE. Arguments and reasons are stored with secrets masked.
 * Blocking JDBC, one connection: the audit verticle calls it from ordered blocking code only.
 */
public final class AuditLog implements AutoCloseable {
  public static final String GENESIS = "0".repeat(64);
  private static final String COLUMNS = "seq, at, principal, node_id, tool, tier, args, args_sha256, call_id, approval_id,"
    + " decision, decider, reason, outcome, code, duration_ms, prev_hash, hash";

  private final Connection connection;
  private long lastSeq;
  private volatile long commits;
  private String lastHash = GENESIS;
  private PreparedStatement insert;

  public AuditLog(Path dbFile) throws SQLException, IOException {
    connection = Sqlite.open(dbFile);
    try (Statement s = connection.createStatement()) {
      s.execute("""
        CREATE TABLE IF NOT EXISTS audit (
          seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, principal TEXT, node_id TEXT, tool TEXT, tier INTEGER,
          args TEXT, args_sha256 TEXT, call_id TEXT, approval_id TEXT, decision TEXT, decider TEXT, reason TEXT,
          outcome TEXT, code INTEGER, duration_ms INTEGER, prev_hash TEXT NOT NULL, hash TEXT NOT NULL
        )""");
      s.execute("CREATE INDEX IF NOT EXISTS audit_at ON audit (at)");
      s.execute("CREATE INDEX IF NOT EXISTS audit_call ON audit (call_id)");
      s.execute("CREATE TRIGGER IF NOT EXISTS audit_no_update BEFORE UPDATE ON audit"
        + " BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END");
      s.execute("CREATE TRIGGER IF NOT EXISTS audit_no_delete BEFORE DELETE ON audit"
        + " BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END");
      try (ResultSet rs = s.executeQuery("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1")) {
        if (rs.next()) {
          lastSeq = rs.getLong(1);
          lastHash = rs.getString(2);
        }
      }
    }
  }

  public long size() {
    return lastSeq;
  }

  /** Transactions committed since opened (one per batch). */
  public long commits() {
    return commits;
  }

  public String head() {
    return lastHash;
  }

  /** Appends in one transaction: all of the batch or none. */
  public void append(List<AuditEntry> entries) throws SQLException {
    if (entries.isEmpty()) {
      return;
    }
    long[] seq = {lastSeq};
    String[] prev = {lastHash};
    io.fleetbus.hub.store.Transactions.inOne(connection, () -> {
      PreparedStatement ps = insert();
      for (AuditEntry e : entries) {
        JsonObject row = row(++seq[0], e);
        String hash = link(prev[0], row);
        bind(ps, row, prev[0], hash);
        ps.executeUpdate();
        prev[0] = hash;
      }
      return null;
    });
    commits++;
    lastSeq = seq[0];
    lastHash = prev[0];
  }

  /** The insert, prepared once: SQLite compiles it again otherwise, for every batch. */
  private PreparedStatement insert() throws SQLException {
    if (insert == null) {
      insert = connection.prepareStatement("INSERT INTO audit (" + COLUMNS + ")"
        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    }
    return insert;
  }

  /** Newest first. {@code outcome} matches the outcome (ok, error) or the decision (denied, expired …). */
  public JsonArray query(String nodeId, String tool, String principal, String outcome, long since, int limit)
    throws SQLException {
    StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM audit WHERE at >= ?");
    List<String> params = new ArrayList<>();
    for (String[] f : new String[][] {{"node_id", nodeId}, {"tool", tool}, {"principal", principal}}) {
      if (f[1] != null) {
        sql.append(" AND ").append(f[0]).append(" = ?");
        params.add(f[1]);
      }
    }
    if (outcome != null) {
      sql.append(" AND (outcome = ? OR decision = ?)");
      params.add(outcome);
      params.add(outcome);
    }
    sql.append(" ORDER BY seq DESC LIMIT ?");
    JsonArray out = new JsonArray();
    try (PreparedStatement ps = connection.prepareStatement(sql.toString())) {
      ps.setLong(1, since);
      for (int i = 0; i < params.size(); i++) {
        ps.setString(i + 2, params.get(i));
      }
      ps.setInt(params.size() + 2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          JsonObject row = read(rs);
          JsonObject shown = row.copy().put("prevHash", rs.getString(17)).put("hash", rs.getString(18));
          String args = row.getString("args");
          out.add(shown.put("args", args == null ? null : new JsonObject(args)));
        }
      }
    }
    return out;
  }

  /** Walks the chain from the start; reports the first record that does not link or does not match its hash. */
  public JsonObject verify() throws SQLException {
    String prev = GENESIS;
    long expected = 1;
    long count = 0;
    try (Statement s = connection.createStatement();
         ResultSet rs = s.executeQuery("SELECT " + COLUMNS + " FROM audit ORDER BY seq")) {
      while (rs.next()) {
        JsonObject row = read(rs);
        long seq = row.getLong("seq");
        String broken = seq != expected ? "record(s) " + expected + (seq - 1 > expected ? "-" + (seq - 1) : "") + " are missing"
          : !prev.equals(rs.getString(17)) ? "its prevHash does not match the hash of the record before"
          : !link(prev, row).equals(rs.getString(18)) ? "its content does not match its hash (the record was altered)"
          : null;
        if (broken != null) {
          return new JsonObject().put("ok", false).put("records", count)
            .put("firstBroken", new JsonObject().put("seq", seq).put("reason", broken));
        }
        prev = rs.getString(18);
        expected = seq + 1;
        count++;
      }
    }
    return new JsonObject().put("ok", true).put("records", count).put("head", prev);
  }

  /** The call ids of {@code callIds} that no audit record names. */
  public JsonArray missing(List<String> callIds) throws SQLException {
    JsonArray out = new JsonArray();
    try (PreparedStatement ps = connection.prepareStatement("SELECT 1 FROM audit WHERE call_id = ? LIMIT 1")) {
      for (String id : callIds) {
        ps.setString(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            out.add(id);
          }
        }
      }
    }
    return out;
  }

  private static String link(String prev, JsonObject row) {
    return Digests.sha256Hex(prev + "\n" + CanonicalJson.of(row));
  }

  private static JsonObject row(long seq, AuditEntry e) {
    // what masking finds in the arguments is scrubbed from every other text of the record as well
    java.util.Set<String> secrets = new java.util.HashSet<>();
    JsonObject masked = e.args() == null ? null : SecretMasker.mask(e.args(), secrets);
    String reason = SecretMasker.mask(e.reason(), secrets);
    return new JsonObject().put("seq", seq).put("at", e.at()).put("principal", e.principal()).put("nodeId", e.nodeId())
      .put("tool", e.tool()).put("tier", e.tier())
      .put("args", masked == null ? null : SecretMasker.scrub(masked.encode(), secrets))
      .put("argsSha256", e.args() == null ? null : CanonicalJson.sha256(e.args())).put("callId", e.callId())
      .put("approvalId", e.approvalId()).put("decision", e.decision()).put("decider", e.decider())
      .put("reason", SecretMasker.scrub(reason, secrets)).put("outcome", e.outcome()).put("code", e.code())
      .put("durationMs", e.durationMs());
  }

  private static void bind(PreparedStatement ps, JsonObject row, String prev, String hash) throws SQLException {
    ps.setLong(1, row.getLong("seq"));
    ps.setLong(2, row.getLong("at"));
    ps.setString(3, row.getString("principal"));
    ps.setString(4, row.getString("nodeId"));
    ps.setString(5, row.getString("tool"));
    ps.setInt(6, row.getInteger("tier"));
    ps.setString(7, row.getString("args"));
    ps.setString(8, row.getString("argsSha256"));
    ps.setString(9, row.getString("callId"));
    ps.setString(10, row.getString("approvalId"));
    ps.setString(11, row.getString("decision"));
    ps.setString(12, row.getString("decider"));
    ps.setString(13, row.getString("reason"));
    ps.setString(14, row.getString("outcome"));
    if (row.getInteger("code") == null) {
      ps.setNull(15, Types.INTEGER);
    } else {
      ps.setInt(15, row.getInteger("code"));
    }
    ps.setLong(16, row.getLong("durationMs"));
    ps.setString(17, prev);
    ps.setString(18, hash);
  }

  private static JsonObject read(ResultSet rs) throws SQLException {
    int code = rs.getInt(15);
    Integer codeOrNull = rs.wasNull() ? null : code;
    return new JsonObject().put("seq", rs.getLong(1)).put("at", rs.getLong(2)).put("principal", rs.getString(3))
      .put("nodeId", rs.getString(4)).put("tool", rs.getString(5)).put("tier", rs.getInt(6)).put("args", rs.getString(7))
      .put("argsSha256", rs.getString(8)).put("callId", rs.getString(9)).put("approvalId", rs.getString(10))
      .put("decision", rs.getString(11)).put("decider", rs.getString(12)).put("reason", rs.getString(13))
      .put("outcome", rs.getString(14)).put("code", codeOrNull).put("durationMs", rs.getLong(16));
  }

  @Override
  public void close() throws SQLException {
    if (insert != null) {
      insert.close();
    }
    connection.close();
  }
}
