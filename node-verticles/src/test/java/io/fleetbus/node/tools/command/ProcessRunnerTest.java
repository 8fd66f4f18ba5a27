package io.fleetbus.node.tools.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Real child processes. */
@Timeout(60)
class ProcessRunnerTest {

  @Test
  void collectsOutputAndExitCode() throws Exception {
    JsonObject r = new ProcessRunner(1024).run(List.of("sh", "-c", "echo out; echo err >&2; exit 3"), null, 10_000);
    assertEquals("out\n", r.getString("stdout"));
    assertEquals("err\n", r.getString("stderr"));
    assertEquals(3, r.getInteger("exitCode"));
    assertFalse(r.getBoolean("timedOut"));
  }

  @Test
  void capsOutputAndSaysSo() throws Exception {
    JsonObject r = new ProcessRunner(100).run(List.of("sh", "-c", "printf 'x%.0s' $(seq 5000)"), null, 10_000);
    assertTrue(r.getBoolean("truncated"));
    assertEquals(5000, r.getLong("stdoutBytes"));
    assertTrue(r.getString("stdout").startsWith("x".repeat(100) + "\n[truncated"), r.getString("stdout"));
  }

  @Test
  void timeoutStopsTheWholeTreeIncludingGrandchildren(@TempDir Path dir) throws Exception {
    Path pidFile = dir.resolve("grandchild.pid");
    // the child starts a grandchild that would outlive it, and records the grandchild's pid
    String script = "sleep 300 & echo $! > " + pidFile + "; wait";
    long started = System.nanoTime();
    JsonObject r = new ProcessRunner(1024).run(List.of("sh", "-c", script), null, 500);
    assertTrue(r.getBoolean("timedOut"));
    assertTrue((System.nanoTime() - started) / 1_000_000 < 8000, "timeout took too long");
    long grandchild = Long.parseLong(Files.readString(pidFile).strip());
    assertFalse(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive).orElse(false),
      "grandchild " + grandchild + " survived");
  }

  @Test
  void programThatReadsStdinSeesEndOfFile() throws Exception {
    JsonObject r = new ProcessRunner(1024).run(List.of("cat"), null, 5000);
    assertEquals(0, r.getInteger("exitCode"));
    assertFalse(r.getBoolean("timedOut"));
  }
}
