package io.fleetbus.hub.enrollment;

import io.fleetbus.hub.store.Sqlite;
import io.fleetbus.hub.store.Transactions;
import io.fleetbus.shared.trust.Digests;
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
 * Enrollment tokens and node credentials in the hub's SQLite file — hashes only, never a token or a
 * credential. Blocking JDBC: the enrollment verticle calls it from ordered blocking code, one connection; its writes
 * go in batches ({@link #apply}), one transaction each.
 */
public final class CredentialStore implements AutoCloseable {
  /** Who spent a token whose creation failed half-way (not a node id: those start with a letter or digit). */
  static final String WITHDRAWN = "(withdrawn)";

  private final Connection connection;

  public CredentialStore(Path dbFile) throws SQLException, IOException {
    connection = Sqlite.open(dbFile);
    try (Statement s = connection.createStatement()) {
      s.execute("""
        CREATE TABLE IF NOT EXISTS enrollment_tokens (
          token_id TEXT PRIMARY KEY,
          token_hash TEXT NOT NULL,
          node_id TEXT,
          created_by TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL,
          used_at INTEGER NOT NULL DEFAULT 0,
          used_by_node TEXT,
          used_by_instance TEXT
        )""");
      s.execute("""
        CREATE TABLE IF NOT EXISTS node_credentials (
          node_id TEXT PRIMARY KEY,
          credential_hash TEXT NOT NULL,
          previous_hash TEXT,
          previous_valid_until INTEGER NOT NULL DEFAULT 0,
          enrolled_at INTEGER NOT NULL,
          rotated_at INTEGER NOT NULL
        )""");
      // when each node was revoked: after a restart, a credential older than its revocation is a replay (issue 32)
      s.execute("CREATE TABLE IF NOT EXISTS node_revocations (node_id TEXT PRIMARY KEY, revoked_at INTEGER NOT NULL)");
    }
  }

  public void insert(EnrollmentToken t) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("INSERT INTO enrollment_tokens (token_id, token_hash, node_id,"
      + " created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, t.tokenId());
      ps.setString(2, Digests.base64Url(t.hash()));
      ps.setString(3, t.nodeId());
      ps.setString(4, t.createdBy());
      ps.setLong(5, t.createdAt());
      ps.setLong(6, t.expiresAt());
      ps.executeUpdate();
    }
  }

  /**
   * Spends an unspent token for nobody: its creation failed half-way (the spender reads {@link #WITHDRAWN}, no node id
   * can be that).
   */
  public void withdraw(String tokenId, long now) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("UPDATE enrollment_tokens SET used_at = ?, used_by_node = ?"
      + " WHERE token_id = ? AND used_at = 0")) {
      ps.setLong(1, now);
      ps.setString(2, WITHDRAWN);
      ps.setString(3, tokenId);
      ps.executeUpdate();
    }
  }

  public EnrollmentToken token(String tokenId) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("SELECT token_id, token_hash, node_id, created_by, created_at,"
      + " expires_at, used_at, used_by_node, used_by_instance FROM enrollment_tokens WHERE token_id = ?")) {
      ps.setString(1, tokenId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new EnrollmentToken(rs.getString(1), Digests.fromBase64Url(rs.getString(2)), rs.getString(3),
          rs.getString(4), rs.getLong(5), rs.getLong(6), rs.getLong(7), rs.getString(8), rs.getString(9)) : null;
      }
    }
  }

  /**
   * Spends the token and stores the node's credential hash, together or not at all. False: another
   * node or process spent it already (the same process may spend it again: its answer was lost).
   */
  public boolean enroll(String tokenId, String instanceId, NodeCredential credential) throws SQLException {
    return Transactions.inOne(connection, () -> {
      try (PreparedStatement spend = connection.prepareStatement("UPDATE enrollment_tokens SET used_at = ?,"
        + " used_by_node = ?, used_by_instance = ? WHERE token_id = ? AND (used_at = 0 OR (used_by_node = ?"
        + " AND used_by_instance = ?))")) {
        spend.setLong(1, credential.enrolledAt());
        spend.setString(2, credential.nodeId());
        spend.setString(3, instanceId);
        spend.setString(4, tokenId);
        spend.setString(5, credential.nodeId());
        spend.setString(6, instanceId);
        if (spend.executeUpdate() != 1) {
          return false; // nothing changed
        }
      }
      save(credential);
      return true;
    });
  }

  /** The steps in one transaction (one fsync), all or none: the enrollment's group commit. */
  void apply(List<Transactions.Step<CredentialStore>> steps) throws SQLException {
    Transactions.steps(connection, this, steps);
  }

  public void save(NodeCredential c) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("""
        INSERT INTO node_credentials (node_id, credential_hash, previous_hash, previous_valid_until, enrolled_at, rotated_at)
        VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT(node_id) DO UPDATE SET credential_hash = excluded.credential_hash, previous_hash = excluded.previous_hash,
          previous_valid_until = excluded.previous_valid_until, enrolled_at = excluded.enrolled_at,
          rotated_at = excluded.rotated_at""")) {
      ps.setString(1, c.nodeId());
      ps.setString(2, Digests.base64Url(c.current()));
      ps.setString(3, c.previous() == null ? null : Digests.base64Url(c.previous()));
      ps.setLong(4, c.previousValidUntil());
      ps.setLong(5, c.enrolledAt());
      ps.setLong(6, c.rotatedAt());
      ps.executeUpdate();
    }
  }

  public List<NodeCredential> credentials() throws SQLException {
    List<NodeCredential> all = new ArrayList<>();
    try (Statement s = connection.createStatement();
         ResultSet rs = s.executeQuery("SELECT node_id, credential_hash, previous_hash, previous_valid_until, enrolled_at,"
           + " rotated_at FROM node_credentials")) {
      while (rs.next()) {
        String previous = rs.getString(3);
        all.add(new NodeCredential(rs.getString(1), Digests.fromBase64Url(rs.getString(2)),
          previous == null ? null : Digests.fromBase64Url(previous), rs.getLong(4), rs.getLong(5), rs.getLong(6)));
      }
    }
    return all;
  }

  /** Forgets a node's credential, keeps when, and spends the unused tokens made for it: it must be enrolled anew. */
  public void revoke(String nodeId, long now) throws SQLException {
    try (PreparedStatement del = connection.prepareStatement("DELETE FROM node_credentials WHERE node_id = ?");
         PreparedStatement spend = connection.prepareStatement(
           "UPDATE enrollment_tokens SET used_at = ?, used_by_node = '(revoked)' WHERE node_id = ? AND used_at = 0");
         PreparedStatement tomb = connection.prepareStatement("INSERT INTO node_revocations (node_id, revoked_at)"
           + " VALUES (?, ?) ON CONFLICT(node_id) DO UPDATE SET revoked_at = MAX(revoked_at, excluded.revoked_at)")) {
      del.setString(1, nodeId);
      del.executeUpdate();
      spend.setLong(1, now);
      spend.setString(2, nodeId);
      spend.executeUpdate();
      tomb.setString(1, nodeId);
      tomb.setLong(2, now);
      tomb.executeUpdate();
    }
  }

  /** When each node was last revoked. */
  public java.util.Map<String, Long> revocations() throws SQLException {
    java.util.Map<String, Long> all = new java.util.HashMap<>();
    try (Statement s = connection.createStatement();
         ResultSet rs = s.executeQuery("SELECT node_id, revoked_at FROM node_revocations")) {
      while (rs.next()) {
        all.put(rs.getString(1), rs.getLong(2));
      }
    }
    return all;
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
