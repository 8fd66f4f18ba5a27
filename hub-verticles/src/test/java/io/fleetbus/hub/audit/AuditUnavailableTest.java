package io.fleetbus.hub.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.msg.LocalCodec;
import io.fleetbus.testsupport.Tmpfs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34 in one JVM: the audit writer on a small tmpfs (mounted by the test as root; skipped where mount is not
 * permitted). When the disk fills, the gate closes with the cause; the next entry fits in the room of the reserve file,
 * given back then; once that is taken too, an entry that cannot be written fails naming
 * SQLite's own error ({@code SQLITE_FULL}, not the rollback's "no transaction is active") and is kept; once space
 * returns the gate opens by itself and the kept entry is in the audit, whose chain verifies. A read-only mount is
 * named as the problem too.
 */
@Timeout(60)
class AuditUnavailableTest {
  private static final long KIB = 1024;
  @TempDir
  Path dir;
  private Path data;
  private boolean mounted;
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    if (mounted) {
      Tmpfs.unmount(data);
    }
  }

  @Test
  void aFullDiskClosesTheGateKeepsWhatCouldNotBeWrittenAndReopensByItself() throws Exception {
    data = Files.createDirectories(dir.resolve("data"));
    String refused = Tmpfs.mount(data, "4m");
    Assumptions.assumeTrue(refused == null, "needs to mount a tmpfs (root, CAP_SYS_ADMIN): " + refused);
    mounted = true;
    LocalCodec.register(vertx, AuditEntry.class);
    await(vertx.deployVerticle(new AuditVerticle(data.resolve("fleetbus.db"),
      new AuditSettings(0, 512, true, 50, 256 * KIB, 256 * KIB))));
    assertTrue(Files.exists(data.resolve(AuditDisk.RESERVE)), "the reserve is in place");
    await(entry("before").record(vertx));

    Tmpfs.fill(data.resolve("filler-1"));
    await(until(() -> AuditGate.problem(vertx) != null));
    assertTrue(AuditGate.problem(vertx).startsWith("no space left on " + data), AuditGate.problem(vertx));
    // the end of a call that was running: the reserve goes back to the file system and the entry fits
    await(entry("running").record(vertx));
    assertTrue(!Files.exists(data.resolve(AuditDisk.RESERVE)), "the reserve was given back");
    // fill that room too: the next write finds the disk full
    Tmpfs.fill(data.resolve("filler-2"));
    Throwable failed = await(entry("while-full").record(vertx)
      .transform(ar -> Future.succeededFuture(ar.failed() ? ar.cause() : null)));
    assertTrue(failed != null && failed.getMessage().startsWith("audit unavailable: no space left on " + data)
      && failed.getMessage().contains("SQLITE_FULL"), String.valueOf(failed));

    Files.delete(data.resolve("filler-1"));
    Files.delete(data.resolve("filler-2"));
    await(until(() -> AuditGate.problem(vertx) == null));
    JsonObject check = await(AuditBus.client(vertx).verify(List.of("before", "running", "while-full")));
    assertTrue(Files.exists(data.resolve(AuditDisk.RESERVE)), "the reserve is back in place");
    assertEquals(new JsonArray(), check.getJsonArray("unaudited"), check.encode());
    assertEquals(true, check.getBoolean("ok"), check.encode());
    assertNull(AuditGate.refusal(vertx, "a call"));
  }

  /** A read-only mount is a problem the disk check names (the gate closes on it like on a full disk). */
  @Test
  void aReadOnlyDataFolderIsNamed() throws Exception {
    data = Files.createDirectories(dir.resolve("data"));
    String refused = Tmpfs.mount(data, "1m");
    Assumptions.assumeTrue(refused == null, "needs to mount a tmpfs (root, CAP_SYS_ADMIN): " + refused);
    mounted = true;
    AuditDisk disk = new AuditDisk(data, 0, 0);
    assertNull(disk.problem(true), "writable");
    assertNull(Tmpfs.readOnly(data), "remounted read-only");
    String problem = disk.problem(false);
    assertTrue(problem != null && problem.contains("read-only"), problem);
    assertNull(Tmpfs.readWrite(data), "remounted read-write");
    assertNull(disk.problem(true), "writable again");
  }

  private static AuditEntry entry(String callId) {
    return AuditEntry.by("alice").on("n1", "run_script", 2).args(new JsonObject()).call(callId, null)
      .decided("auto", null, null).ended("ok", null, 1).build();
  }

  private <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /** Completes once {@code condition} holds (checked every 20 ms on a timer). */
  private Future<Void> until(BooleanSupplier condition) {
    Promise<Void> held = Promise.promise();
    vertx.setPeriodic(20, t -> {
      if (condition.getAsBoolean()) {
        vertx.cancelTimer(t);
        held.tryComplete();
      }
    });
    return held.future();
  }


}
