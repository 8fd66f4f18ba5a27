package io.fleetbus.bench.floor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.bench.load.Await;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The durable floor's replier (issue 38), on a local bus: each answer comes after a committed record, in WAL mode. */
class DurableReplierTest {

  @Test
  void answersAfterCommittingOneRecordPerRequestAndTimesTheRawFsync(@TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    Path db = dir.resolve("floor.db");
    try {
      Await.result(vertx.deployVerticle(new DurableReplier(db, DurableReplier.ADDRESS)), Duration.ofSeconds(30));
      Await.result(vertx.deployVerticle(new DurableReplier(dir.resolve("hop.db"), DurableReplier.HOP_ADDRESS),
        new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER)), Duration.ofSeconds(30));
      for (String address : new String[] {DurableReplier.ADDRESS, DurableReplier.HOP_ADDRESS,
        DurableReplier.FSYNC_ADDRESS, DurableReplier.SPIN_ADDRESS, DurableReplier.PARK_ADDRESS}) {
        DurableFloorPath path = new DurableFloorPath(vertx, address);
        for (int i = 0; i < 3; i++) {
          Await.result(path.call(), Duration.ofSeconds(10));
        }
        assertEquals(3, path.commits().count(), address);
        assertTrue(path.commits().p50Ms() > 0 && path.outsideCommit().p50Ms() >= 0, address);
      }
    } finally {
      Await.result(vertx.close(), Duration.ofSeconds(30));
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM floor")) {
        rs.next();
        assertEquals(3, rs.getInt(1), "one committed record per request (the raw fsync writes no record)");
      }
      try (ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
        rs.next();
        assertEquals("wal", rs.getString(1));
      }
    }
  }
}
