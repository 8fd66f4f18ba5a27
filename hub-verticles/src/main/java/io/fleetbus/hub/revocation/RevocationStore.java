package io.fleetbus.hub.revocation;

import io.fleetbus.hub.auth.Revocation;
import io.fleetbus.hub.store.Sqlite;
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
 * Revocations in the hub's SQLite file, so a restarted hub refuses what was revoked before it stopped (also when no
 * other hub kept the fleet's copy). Blocking JDBC, one connection: called from the revocation verticle's ordered
 * blocking code only.
 */
final class RevocationStore implements AutoCloseable {
  private final Connection connection;

  RevocationStore(Path dbFile) throws SQLException, IOException {
    connection = Sqlite.open(dbFile);
    try (Statement s = connection.createStatement()) {
      s.execute("""
        CREATE TABLE IF NOT EXISTS revocations (
          kind TEXT NOT NULL,
          value TEXT NOT NULL,
          revoked_at INTEGER NOT NULL,
          keep_until INTEGER NOT NULL,
          revoked_by TEXT,
          PRIMARY KEY (kind, value)
        )""");
    }
  }

  /** Stores {@code r} (for a key already there, the later cut-off and expiry win). */
  void save(Revocation r) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("""
        INSERT INTO revocations (kind, value, revoked_at, keep_until, revoked_by) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (kind, value) DO UPDATE SET
          revoked_by = CASE WHEN excluded.revoked_at >= revoked_at THEN excluded.revoked_by ELSE revoked_by END,
          revoked_at = MAX(revoked_at, excluded.revoked_at),
          keep_until = MAX(keep_until, excluded.keep_until)""")) {
      ps.setString(1, r.kind().label());
      ps.setString(2, r.value());
      ps.setLong(3, r.revokedAt());
      ps.setLong(4, r.keepUntil());
      ps.setString(5, r.by());
      ps.executeUpdate();
    }
  }

  /** Every revocation still kept at {@code nowMs}; the ones past their time are deleted first. */
  List<Revocation> load(long nowMs) throws SQLException {
    try (PreparedStatement del = connection.prepareStatement("DELETE FROM revocations WHERE keep_until <= ?")) {
      del.setLong(1, nowMs);
      del.executeUpdate();
    }
    List<Revocation> out = new ArrayList<>();
    try (Statement s = connection.createStatement();
         ResultSet rs = s.executeQuery("SELECT kind, value, revoked_at, keep_until, revoked_by FROM revocations")) {
      while (rs.next()) {
        Revocation.Kind kind = "token".equals(rs.getString(1)) ? Revocation.Kind.TOKEN : Revocation.Kind.SUBJECT;
        out.add(new Revocation(kind, rs.getString(2), rs.getLong(3), rs.getLong(4), rs.getString(5)));
      }
    }
    return out;
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
