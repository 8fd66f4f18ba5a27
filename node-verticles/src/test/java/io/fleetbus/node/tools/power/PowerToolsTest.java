package io.fleetbus.node.tools.power;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The countdown with a harmless stand-in command: a marker file appears instead of a reboot. */
@Timeout(30)
class PowerToolsTest {
  @TempDir
  Path dir;

  private Map<String, ToolHandler> tools(NodeSettings s) {
    return PowerTools.handlers(new PowerSchedule(new HostCommands(true, new ProcessRunner(1024)), s.tools().power()),
      dir.resolve("run/reboot-required"));
  }

  private NodeSettings node(int countdown, Path marker) {
    return TestNode.settings("sudo", dir, new JsonObject().put("power", new JsonObject().put("countdownSeconds", countdown)
      .put("rebootCommand", new JsonArray().add("touch").add(marker.toString()))
      .put("shutdownCommand", new JsonArray().add("touch").add(marker + ".off"))));
  }

  @Test
  void rebootRunsTheConfiguredCommandAfterTheCountdown() throws Exception {
    Path marker = dir.resolve("rebooted");
    NodeSettings s = node(1, marker);
    Map<String, ToolHandler> t = tools(s);
    JsonObject r = TestNode.run(t.get("reboot_machine"), "reboot_machine", new JsonObject().put("reason", "test"), s);
    assertEquals(1, r.getInteger("countdownSeconds"));
    assertFalse(Files.exists(marker), "not before the countdown");
    FleetException twice = assertThrows(FleetException.class,
      () -> TestNode.run(t.get("shutdown_machine"), "shutdown_machine", new JsonObject(), s));
    assertEquals(FailureCode.CONFLICT, twice.code());
    awaitFile(marker);
    assertFalse(Files.exists(Path.of(marker + ".off")));
  }

  @Test
  void cancelWithinTheCountdownStopsIt() throws Exception {
    Path marker = dir.resolve("off");
    NodeSettings s = node(2, marker);
    Map<String, ToolHandler> t = tools(s);
    TestNode.run(t.get("shutdown_machine"), "shutdown_machine", new JsonObject(), s);
    JsonObject c = TestNode.run(t.get("cancel_reboot"), "cancel_reboot", new JsonObject(), s);
    assertEquals("shutdown", c.getString("cancelled"));
    assertEquals(FailureCode.NOT_FOUND, assertThrows(FleetException.class,
      () -> TestNode.run(t.get("cancel_reboot"), "cancel_reboot", new JsonObject(), s)).code());
    // a reboot scheduled after the cancel proves the countdown timer is free again, and its file is the only one
    Path second = dir.resolve("second");
    NodeSettings s2 = node(1, second);
    Map<String, ToolHandler> t2 = tools(s2);
    TestNode.run(t2.get("reboot_machine"), "reboot_machine", new JsonObject(), s2);
    awaitFile(second);
    assertFalse(Files.exists(Path.of(marker + ".off")), "the cancelled shutdown ran anyway");
  }

  @Test
  void pendingRebootReadsTheMarkerFiles() throws Exception {
    NodeSettings s = node(30, dir.resolve("x"));
    Map<String, ToolHandler> t = tools(s);
    Files.createDirectories(dir.resolve("run"));
    JsonObject none = TestNode.run(t.get("check_pending_reboot"), "check_pending_reboot", new JsonObject(), s);
    assertFalse(none.getBoolean("pending"));
    Files.writeString(dir.resolve("run/reboot-required"), "*** System restart required ***\n");
    Files.writeString(dir.resolve("run/reboot-required.pkgs"), "linux-image-6.1.0-13-amd64\nlibc6\nlibc6\n");
    JsonObject yes = TestNode.run(t.get("check_pending_reboot"), "check_pending_reboot", new JsonObject(), s);
    assertTrue(yes.getBoolean("pending"));
    assertEquals(2, yes.getJsonArray("packages").size());
    assertEquals("*** System restart required ***", yes.getJsonArray("reasons").getString(0));
  }

  /** Waits for the stand-in's file by watching its folder (an event, not a fixed sleep). */
  private static void awaitFile(Path file) throws Exception {
    try (var watcher = file.getFileSystem().newWatchService()) {
      file.getParent().register(watcher, java.nio.file.StandardWatchEventKinds.ENTRY_CREATE);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      while (!Files.exists(file)) {
        long left = deadline - System.nanoTime();
        assertTrue(left > 0, file + " did not appear");
        var key = watcher.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)), TimeUnit.NANOSECONDS);
        if (key != null) {
          key.pollEvents();
          key.reset();
        }
      }
    }
  }
}
