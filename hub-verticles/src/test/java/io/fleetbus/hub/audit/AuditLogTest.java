package io.fleetbus.hub.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real SQLite file, tampered with the way someone with file access would. */
class AuditLogTest {
  @TempDir
  Path dir;

  private static AuditEntry entry(String principal, String tool, String outcome, JsonObject args) {
    return AuditEntry.by(principal).on("n1", tool, 3).args(args).call("call-" + tool, null)
      .decided("approved", "bob", "looks fine").ended(outcome, "ok".equals(outcome) ? null : 500, 12).build();
  }

  @Test
  void chainVerifiesFiltersWorkAndSecretsAreMasked() throws Exception {
    Path db = dir.resolve("fleetbus.db");
    try (AuditLog log = new AuditLog(db)) {
      log.append(List.of(entry("alice", "run_command", "ok", new JsonObject().put("command", "mysql --password hunter2")),
        entry("carol", "write_file", "error", new JsonObject().put("path", "/etc/x").put("api_key", "k-777"))));
      log.append(List.of(entry("alice", "get_env", "ok", new JsonObject())));
      JsonObject check = log.verify();
      assertTrue(check.getBoolean("ok"), check.encode());
      assertEquals(3, check.getLong("records"));
      JsonArray alice = log.query(null, null, "alice", null, 0, 10);
      assertEquals(2, alice.size());
      assertEquals("get_env", alice.getJsonObject(0).getString("tool"), "newest first");
      assertEquals(1, log.query("n1", "write_file", null, "error", 0, 10).size());
      assertEquals(3, log.query(null, null, null, "approved", 0, 10).size());
      assertEquals(0, log.query(null, null, null, null, System.currentTimeMillis() + 60_000, 10).size());
      assertEquals(1, log.query(null, null, null, null, 0, 1).size());
      assertEquals("mysql --password ***MASKED***", alice.getJsonObject(1).getJsonObject("args").getString("command"));
    }
    String raw = new String(Files.readAllBytes(db), java.nio.charset.StandardCharsets.ISO_8859_1)
      + (Files.exists(dir.resolve("fleetbus.db-wal")) ? Files.readString(dir.resolve("fleetbus.db-wal"),
        java.nio.charset.StandardCharsets.ISO_8859_1) : "");
    assertFalse(raw.contains("hunter2"));
    assertFalse(raw.contains("k-777"));
  }

  @Test
  void updatesAndDeletesAreRefusedAndTamperingIsFound() throws Exception {
    Path db = dir.resolve("fleetbus.db");
    try (AuditLog log = new AuditLog(db)) {
      for (int i = 0; i < 5; i++) {
        log.append(List.of(entry("u" + i, "run_command", "ok", new JsonObject().put("i", i))));
      }
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
      SQLException refused = assertThrows(SQLException.class, () -> s.executeUpdate("UPDATE audit SET principal = 'x' WHERE seq = 2"));
      assertTrue(refused.getMessage().contains("append-only"), refused.getMessage());
      assertThrows(SQLException.class, () -> s.executeUpdate("DELETE FROM audit WHERE seq = 2"));
      // someone with the file drops the guard and rewrites history
      s.execute("DROP TRIGGER audit_no_update");
      s.executeUpdate("UPDATE audit SET decider = 'mallory' WHERE seq = 3");
    }
    try (AuditLog log = new AuditLog(db)) {
      JsonObject check = log.verify();
      assertFalse(check.getBoolean("ok"));
      assertEquals(3, check.getJsonObject("firstBroken").getLong("seq"));
      assertTrue(check.getJsonObject("firstBroken").getString("reason").contains("altered"));
      assertEquals(2, check.getLong("records"));
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
      // reopening the log put its guard back: drop both this time
      s.execute("DROP TRIGGER audit_no_update");
      s.execute("DROP TRIGGER audit_no_delete");
      s.executeUpdate("UPDATE audit SET decider = 'bob' WHERE seq = 3");
      s.executeUpdate("DELETE FROM audit WHERE seq = 2");
    }
    try (AuditLog log = new AuditLog(db)) {
      JsonObject check = log.verify();
      assertEquals(3, check.getJsonObject("firstBroken").getLong("seq"));
      assertTrue(check.getJsonObject("firstBroken").getString("reason").contains("missing"), check.encode());
    }
  }
}
