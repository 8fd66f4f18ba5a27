package io.fleetbus.node.tools.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** run_command and run_script with real child processes. */
@Timeout(60)
class CommandToolsTest {
  @TempDir
  Path dir;

  private Map<String, ToolHandler> tools(NodeSettings s) {
    return CommandTools.handlers(s, new HostCommands(!s.unprivileged(), new ProcessRunner(4096)), PathScope.of(s));
  }

  @Test
  void packageManagerRunsWithItsRulesAndTheElevationPrefix() throws Exception {
    // 'env' stands in for a package manager: it prints its arguments' effect, and the prefix shows elevation
    NodeSettings s = TestNode.settings("sudo", dir, new JsonObject().put("commands", new JsonObject()
      .put("packageManagers", new JsonArray().add("printf"))
      .put("elevateWith", new JsonArray().add("env").add("ELEVATED=1"))
      .put("rules", new JsonObject().put("printf", new JsonObject().put("subcommands", new JsonArray().add("%s|%s\\n"))
        .put("flags", new JsonArray()).put("separator", true)))));
    JsonObject r = TestNode.run(tools(s).get("run_command"), "run_command",
      new JsonObject().put("command", "printf '%s|%s\\n' a b"), s);
    assertEquals(List.of("env", "ELEVATED=1", "printf", "%s|%s\\n", "--", "a", "b"), r.getJsonArray("argv").getList());
    assertEquals(0, r.getInteger("exitCode"), r.encode());
    FleetException sub = assertThrows(FleetException.class, () -> TestNode.run(tools(s).get("run_command"), "run_command",
      new JsonObject().put("command", "printf other"), s));
    assertEquals(FailureCode.FORBIDDEN, sub.code());
    FleetException flag = assertThrows(FleetException.class, () -> TestNode.run(tools(s).get("run_command"), "run_command",
      new JsonObject().put("command", "printf '%s|%s\\n' -v x"), s));
    assertTrue(flag.getMessage().contains("'-v'"), flag.getMessage());
  }

  @Test
  void packageManagersAreNotOfferedToUnprivilegedNodes() {
    NodeSettings s = TestNode.settings("unprivileged", dir, new JsonObject().put("commands", new JsonObject()
      .put("packageManagers", new JsonArray().add("printf"))));
    assertEquals(FailureCode.FORBIDDEN, assertThrows(FleetException.class, () -> TestNode.run(tools(s).get("run_command"),
      "run_command", new JsonObject().put("command", "printf x"), s)).code());
  }

  @Test
  void commandRunsInAScopedWorkingFolder() throws Exception {
    NodeSettings s = TestNode.settings("sudo", dir, null);
    Files.writeString(dir.resolve("here.txt"), "x");
    JsonObject r = TestNode.run(tools(s).get("run_command"), "run_command",
      new JsonObject().put("command", "ls").put("cwd", dir.toString()), s);
    assertTrue(r.getString("stdout").contains("here.txt"), r.encode());
  }

  @Test
  void scriptRunsWithBashAndShAndReportsExitCodes() throws Exception {
    NodeSettings s = TestNode.settings("root", dir, null);
    JsonObject bash = TestNode.run(tools(s).get("run_script"), "run_script",
      new JsonObject().put("script", "for i in 1 2; do echo \"n$i\"; done; exit 4"), s);
    assertEquals("n1\nn2\n", bash.getString("stdout"));
    assertEquals(4, bash.getInteger("exitCode"));
    JsonObject sh = TestNode.run(tools(s).get("run_script"), "run_script", new JsonObject().put("command", "pwd")
      .put("interpreter", "sh").put("working_directory", dir.toString()), s);
    assertEquals(dir.toRealPath() + "\n", sh.getString("stdout"));
  }

  @Test
  void scriptTimeoutStopsIt() throws Exception {
    NodeSettings s = TestNode.settings("root", dir, null);
    long t0 = System.nanoTime();
    JsonObject r = TestNode.run(tools(s).get("run_script"), "run_script",
      new JsonObject().put("script", "sleep 60").put("timeout_seconds", 1), s);
    assertTrue(r.getBoolean("timedOut"));
    assertTrue((System.nanoTime() - t0) / 1_000_000 < 10_000);
  }

  @Test
  void missingInterpreterIsNotAvailableHere() {
    NodeSettings s = TestNode.settings("root", dir, null);
    HostCommands host = new HostCommands(true, new ProcessRunner(1024));
    org.junit.jupiter.api.Assumptions.assumeTrue(host.find("pwsh").isEmpty());
    FleetException e = assertThrows(FleetException.class, () -> TestNode.run(tools(s).get("run_script"), "run_script",
      new JsonObject().put("script", "Get-Date").put("interpreter", "pwsh"), s));
    assertEquals(FailureCode.NO_ELIGIBLE_NODE, e.code());
    assertTrue(e.getMessage().startsWith("not available on this node: "), e.getMessage());
  }

  @Test
  void destructiveWallAppliesOnSudoOnly() throws Exception {
    NodeSettings sudo = TestNode.settings("sudo", dir, null);
    assertEquals(FailureCode.FORBIDDEN, assertThrows(FleetException.class, () -> TestNode.run(tools(sudo).get("run_script"),
      "run_script", new JsonObject().put("script", "mkfs.ext4 /dev/sdz"), sudo)).code());
    NodeSettings root = TestNode.settings("root", dir, null);
    JsonObject r = TestNode.run(tools(root).get("run_command"), "run_command", new JsonObject().put("command", "echo reboot"), root);
    assertEquals("reboot\n", r.getString("stdout"));
  }
}
