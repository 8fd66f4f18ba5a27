package io.fleetbus.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.StreamChunk;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Streaming and cancel of a real child process. */
@ExtendWith(VertxExtension.class)
@Timeout(30)
class CallControlTest {

  @BeforeEach
  void codecs(Vertx vertx) {
    Codecs.register(vertx);
  }

  @Test
  void outputIsStreamedInOrderThenEnds(Vertx vertx, VertxTestContext test) {
    List<StreamChunk> chunks = new CopyOnWriteArrayList<>();
    vertx.eventBus().<StreamChunk>consumer(Addresses.callStream("s1"), m -> {
      chunks.add(m.body());
      if (m.body().fin()) {
        test.verify(() -> {
          String out = chunks.stream().filter(c -> "stdout".equals(c.stream())).map(StreamChunk::data)
            .reduce("", String::concat);
          assertEquals("one\ntwo\n", out);
          for (int i = 1; i < chunks.size(); i++) {
            assertTrue(chunks.get(i).seq() > chunks.get(i - 1).seq());
          }
          test.completeNow();
        });
      }
    }).completion().onComplete(test.succeeding(v -> vertx.executeBlocking(() -> {
      CallControl control = CallControl.streaming("s1", vertx.eventBus());
      new ProcessRunner(1024).run(List.of("sh", "-c", "echo one; echo two"), null, 5000, control);
      control.finish();
      return null;
    })));
  }

  @Test
  void cancelKillsTheTreeAndTheRunEndsAtOnce(@TempDir Path dir) throws Exception {
    CallControl control = CallControl.detached("c1");
    Path pidFile = dir.resolve("child.pid");
    Thread canceller = new Thread(() -> {
      try {
        while (!Files.exists(pidFile) || Files.readString(pidFile).isBlank()) {
          Thread.onSpinWait();
        }
      } catch (java.io.IOException e) {
        throw new IllegalStateException(e);
      }
      assertTrue(control.cancel("alice"));
    });
    canceller.start();
    long t0 = System.nanoTime();
    JsonObject r = new ProcessRunner(1024).run(List.of("sh", "-c", "sleep 60 & echo $! > " + pidFile + "; wait"),
      null, 30_000, control);
    canceller.join();
    assertTrue((System.nanoTime() - t0) / 1_000_000 < 10_000, "cancel did not stop the run");
    assertFalse(r.getBoolean("timedOut"));
    assertTrue(control.isCancelled());
    assertEquals("alice", control.cancelledBy());
    long child = Long.parseLong(Files.readString(pidFile).strip());
    assertFalse(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false), "child survived the cancel");
    assertFalse(control.cancel("bob"), "second cancel is a no-op");
  }

  @Test
  void hookRegisteredAfterCancelRunsAtOnce() {
    CallControl control = CallControl.detached("c2");
    control.cancel("x");
    boolean[] ran = {false};
    control.onCancel(() -> ran[0] = true);
    assertTrue(ran[0]);
  }
}
