package io.fleetbus.hub.registry;

import io.fleetbus.hub.store.Transactions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The durable node table in the hub's SQLite file. Blocking JDBC: the registry calls it from ordered
 * blocking code only, so one connection serves it.
 */
public final class NodeStore implements AutoCloseable {
  private final Connection connection;
  private volatile long commits;

  public NodeStore(Path dbFile) throws SQLException, java.io.IOException {
    connection = io.fleetbus.hub.store.Sqlite.open(dbFile);
    try (Statement s = connection.createStatement()) {
      s.execute("""
        CREATE TABLE IF NOT EXISTS nodes (
          node_id TEXT PRIMARY KEY,
          platform TEXT,
          capability_tier TEXT,
          labels TEXT NOT NULL DEFAULT '{}',
          agent_version TEXT,
          tools TEXT NOT NULL DEFAULT '[]',
          epoch INTEGER NOT NULL DEFAULT 0,
          first_seen INTEGER NOT NULL,
          last_seen INTEGER NOT NULL,
          heartbeat_ms INTEGER
        )""");
      s.execute("""
        CREATE TABLE IF NOT EXISTS node_events (
          node_id TEXT NOT NULL,
          at INTEGER NOT NULL,
          event TEXT NOT NULL,
          reason TEXT
        )""");
      s.execute("CREATE INDEX IF NOT EXISTS node_events_by_node ON node_events (node_id, at)");
      if (!hasColumn(s, "nodes", "last_heartbeat")) {
        // files from before issue 19: the column is added, empty until the node's next heartbeat is saved
        s.execute("ALTER TABLE nodes ADD COLUMN last_heartbeat INTEGER");
      }
    }
  }

  private static boolean hasColumn(Statement s, String table, String column) throws SQLException {
    try (ResultSet rs = s.executeQuery("PRAGMA table_info(" + table + ")")) {
      while (rs.next()) {
        if (column.equals(rs.getString("name"))) {
          return true;
        }
      }
    }
    return false;
  }

  /** Proves the database answers (readiness). */
  public boolean ping() throws SQLException {
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
      return rs.next();
    }
  }

  public List<NodeRecord> loadAll() throws SQLException {
    List<NodeRecord> nodes = new ArrayList<>();
    try (Statement s = connection.createStatement();
         ResultSet rs = s.executeQuery("SELECT node_id, platform, capability_tier, labels, agent_version, tools, epoch,"
           + " first_seen, last_seen, last_heartbeat FROM nodes ORDER BY node_id")) {
      while (rs.next()) {
        // offline until its next heartbeat, but with the last one this hub (or the one before it) saw
        nodes.add(new NodeRecord(rs.getString(1), null, rs.getString(2), rs.getString(3), new JsonObject(rs.getString(4)),
          rs.getString(5), new JsonArray(rs.getString(6)), rs.getLong(7), rs.getLong(8), rs.getLong(9), false,
          rs.getLong(10), null));
      }
    }
    return nodes;
  }

  public void upsert(NodeRecord n) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("""
        INSERT INTO nodes (node_id, platform, capability_tier, labels, agent_version, tools, epoch, first_seen, last_seen,
          last_heartbeat)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, 0))
        ON CONFLICT(node_id) DO UPDATE SET platform = excluded.platform, capability_tier = excluded.capability_tier,
          labels = excluded.labels, agent_version = excluded.agent_version, tools = excluded.tools,
          epoch = excluded.epoch, last_seen = excluded.last_seen,
          last_heartbeat = MAX(COALESCE(nodes.last_heartbeat, 0), COALESCE(excluded.last_heartbeat, 0))""")) {
      ps.setString(1, n.nodeId());
      ps.setString(2, n.platform());
      ps.setString(3, n.capabilityTier());
      ps.setString(4, n.labels().encode());
      ps.setString(5, n.agentVersion());
      ps.setString(6, n.tools().encode());
      ps.setLong(7, n.epoch());
      ps.setLong(8, n.firstSeen());
      ps.setLong(9, n.lastSeen());
      ps.setLong(10, n.lastHeartbeat());
      ps.executeUpdate();
    }
  }

  /** The heartbeat interval the hub set for one node (config_update), or null for the hub's default. */
  public java.util.Map<String, Long> loadIntervals() throws SQLException {
    java.util.Map<String, Long> intervals = new java.util.HashMap<>();
    try (Statement s = connection.createStatement();
         ResultSet rs = s.executeQuery("SELECT node_id, heartbeat_ms FROM nodes WHERE heartbeat_ms IS NOT NULL")) {
      while (rs.next()) {
        intervals.put(rs.getString(1), rs.getLong(2));
      }
    }
    return intervals;
  }

  public void setInterval(String nodeId, long heartbeatMs) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("UPDATE nodes SET heartbeat_ms = ? WHERE node_id = ?")) {
      ps.setLong(1, heartbeatMs);
      ps.setString(2, nodeId);
      ps.executeUpdate();
    }
  }

  public void setLabels(String nodeId, JsonObject labels) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("UPDATE nodes SET labels = ? WHERE node_id = ?")) {
      ps.setString(1, labels.encode());
      ps.setString(2, nodeId);
      ps.executeUpdate();
    }
  }

  /** One step of a node's lifecycle: registered, online, offline (with reason), revoked … */
  public void appendEvent(String nodeId, long at, String event, String reason) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(
      "INSERT INTO node_events (node_id, at, event, reason) VALUES (?, ?, ?, ?)")) {
      ps.setString(1, nodeId);
      ps.setLong(2, at);
      ps.setString(3, event);
      ps.setString(4, reason);
      ps.executeUpdate();
    }
  }

  /** The newest {@code limit} lifecycle steps of a node, oldest first. */
  public JsonArray events(String nodeId, int limit) throws SQLException {
    JsonArray events = new JsonArray();
    try (PreparedStatement ps = connection.prepareStatement(
      "SELECT at, event, reason FROM (SELECT rowid, at, event, reason FROM node_events WHERE node_id = ?"
        + " ORDER BY rowid DESC LIMIT ?) ORDER BY rowid")) {
      ps.setString(1, nodeId);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          events.add(new JsonObject().put("at", rs.getLong(1)).put("event", rs.getString(2)).put("reason", rs.getString(3)));
        }
      }
    }
    return events;
  }

  /** When the node was last seen and last sent a heartbeat (0: never); an older time never replaces a newer one. */
  public void touch(String nodeId, long lastSeen, long lastHeartbeat) throws SQLException {
    saveHeartbeats(java.util.Map.of(nodeId, new long[] {lastSeen, lastHeartbeat}));
  }

  /**
   * Many nodes' last sightings in one transaction (the registry saves them every few seconds, not per heartbeat):
   * node id → {lastSeen, lastHeartbeat}.
   */
  public void saveHeartbeats(java.util.Map<String, long[]> seen) throws SQLException {
    Transactions.inOne(connection, () -> {
      try (PreparedStatement ps = connection.prepareStatement("UPDATE nodes SET last_seen = MAX(last_seen, ?),"
        + " last_heartbeat = NULLIF(MAX(COALESCE(last_heartbeat, 0), ?), 0) WHERE node_id = ?")) {
        for (var e : seen.entrySet()) {
          ps.setLong(1, e.getValue()[0]);
          ps.setLong(2, e.getValue()[1]);
          ps.setString(3, e.getKey());
          ps.addBatch();
        }
        ps.executeBatch();
      }
      return null;
    });
  }

  /** Batches committed since opened (one transaction each). */
  long commits() {
    return commits;
  }

  /** The steps in one transaction (one fsync), all or none: the registry's group commit. */
  void apply(List<Transactions.Step<NodeStore>> steps) throws SQLException {
    Transactions.steps(connection, this, steps);
    commits++;
  }

  /** Forgets a revoked node: a node that later uses its id must enroll again. */
  public void delete(String nodeId) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("DELETE FROM nodes WHERE node_id = ?")) {
      ps.setString(1, nodeId);
      ps.executeUpdate();
    }
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
