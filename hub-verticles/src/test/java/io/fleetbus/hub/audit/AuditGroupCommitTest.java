package io.fleetbus.hub.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.msg.LocalCodec;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit writer's group commit on a real SQLite file: a recorded entry is acknowledged only once it is
 * committed (a second connection reads it at that moment), and a burst is written in a few transactions.
 */
@Timeout(60)
class AuditGroupCommitTest {
  @TempDir
  Path dir;
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static AuditEntry entry(int i) {
    return AuditEntry.by("alice").on("n1", "get_agent_health", 1).args(new JsonObject()).call("call-" + i, null)
      .decided("auto", null, null).ended("ok", null, 1).build();
  }

  private <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void everyAcknowledgedEntryIsAlreadyOnDiskAndABurstTakesFewCommits() throws Exception {
    Path db = dir.resolve("fleetbus.db");
    LocalCodec.register(vertx, AuditEntry.class);
    AuditVerticle writer = new AuditVerticle(db, AuditSettings.DEFAULT);
    await(vertx.deployVerticle(writer));
    Set<String> notOnDiskWhenAcked = ConcurrentHashMap.newKeySet();
    try (Connection reader = DriverManager.getConnection("jdbc:sqlite:" + db)) {
      List<Future<Void>> acks = new ArrayList<>();
      int n = 2000;
      for (int i = 0; i < n; i++) {
        String callId = "call-" + i;
        // the check runs on the event loop that delivers the ack: the next batch cannot start meanwhile
        acks.add(entry(i).record(vertx).onSuccess(v -> {
          if (!onDisk(reader, callId)) {
            notOnDiskWhenAcked.add(callId);
          }
        }));
      }
      await(Future.all(acks));
      assertEquals(Set.of(), notOnDiskWhenAcked, "acknowledged before its batch was committed");
      JsonObject check = await(AuditBus.client(vertx).verify(List.of("call-7", "never-audited")));
      assertEquals(n, check.getLong("records"), check.encode());
      assertEquals(new JsonArray().add("never-audited"), check.getJsonArray("unaudited"), check.encode());
      assertEquals(false, check.getBoolean("ok"), "a finished call without its audit record makes the check fail");
    }
    try (AuditLog log = new AuditLog(db)) {
      assertTrue(log.verify().getBoolean("ok"));
    }
    long commits = writer.commits();
    assertTrue(commits <= 2000 / 10, "group commit: " + commits + " transactions for 2000 entries");
  }

  @Test
  void withTheOldBehaviourAnEntryIsAcknowledgedBeforeItIsWritten() throws Exception {
    Path db = dir.resolve("fleetbus.db");
    LocalCodec.register(vertx, AuditEntry.class);
    // a long batch window: the ack of the switched-off writer comes well before the commit
    await(vertx.deployVerticle(new AuditVerticle(db, new AuditSettings(1000, 100_000, false))));
    try (Connection reader = DriverManager.getConnection("jdbc:sqlite:" + db)) {
      await(entry(1).record(vertx));
      assertEquals(false, onDisk(reader, "call-1"), "answered before the audit record was committed");
    }
  }

  private static boolean onDisk(Connection reader, String callId) {
    try (Statement s = reader.createStatement();
         ResultSet rs = s.executeQuery("SELECT count(*) FROM audit WHERE call_id = '" + callId + "'")) {
      return rs.next() && rs.getInt(1) == 1;
    } catch (java.sql.SQLException e) {
      // the table does not exist before the first batch
      return false;
    }
  }
}
