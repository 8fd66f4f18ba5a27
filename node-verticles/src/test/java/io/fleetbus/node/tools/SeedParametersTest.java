package io.fleetbus.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.command.CommandTools;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19, item 10: the seeds' run_command fields — timeoutMs, env, user_session — and its signal output, with real
 * child processes.
 */
@Timeout(60)
class SeedParametersTest {
  @TempDir
  Path dir;

  private ToolHandler runCommand(List<String> allowlist) {
    NodeSettings base = TestNode.settings("root", dir, null);
    NodeSettings s = new NodeSettings(base.nodeId(), base.instanceId(), "root", new JsonObject(), base.dataDir(), 1000,
      allowlist, 4096, 1000, base.tools());
    return CommandTools.handlers(s, new HostCommands(true, new ProcessRunner(4096)), PathScope.of(s)).get("run_command");
  }

  private JsonObject run(ToolHandler tool, JsonObject args) throws Exception {
    return TestNode.run(tool, "run_command", args, TestNode.settings("root", dir, null));
  }

  @Test
  void timeoutMsReplacesTimeoutSecondsAndTheSignalThatEndedTheProgramIsNamed() throws Exception {
    ToolHandler tool = runCommand(List.of("sleep", "echo"));
    long started = System.nanoTime();
    JsonObject r = run(tool, new JsonObject().put("command", "sleep 30").put("timeoutMs", 300));
    long tookMs = (System.nanoTime() - started) / 1_000_000;
    assertTrue(tookMs < 10_000, "timeoutMs 300 beat timeout_seconds' default of 25 s: took " + tookMs + " ms");
    assertEquals(true, r.getBoolean("timedOut"), r.encode());
    assertEquals("SIGTERM", r.getString("signal"), r.encode());
    assertEquals(143, r.getInteger("exitCode"), r.encode());
    JsonObject normal = run(tool, new JsonObject().put("command", "echo fine"));
    assertEquals(0, normal.getInteger("exitCode"));
    assertTrue(normal.containsKey("signal"), "signal is always answered: " + normal.encode());
    assertNull(normal.getString("signal"), normal.encode());
    assertFalse(normal.containsKey(Unsupported.FIELD), normal.encode());
  }

  @Test
  void envAddsVariablesFromTheNodesListOnly() throws Exception {
    ToolHandler tool = runCommand(List.of("printenv"));
    JsonObject r = run(tool, new JsonObject().put("command", "printenv TZ LC_TIME")
      .put("env", new JsonObject().put("TZ", "Europe/Paris").put("LC_TIME", "C")));
    assertEquals("Europe/Paris\nC\n", r.getString("stdout"), r.encode());
    FleetException preload = assertThrows(FleetException.class, () -> run(tool, new JsonObject()
      .put("command", "printenv").put("env", new JsonObject().put("LD_PRELOAD", "/tmp/evil.so"))));
    assertEquals(403, preload.code().code);
    assertTrue(preload.getMessage().contains("'LD_PRELOAD'") && preload.getMessage().contains("commands.env"),
      preload.getMessage());
    FleetException localeFile = assertThrows(FleetException.class, () -> run(tool, new JsonObject()
      .put("command", "printenv").put("env", new JsonObject().put("LANG", "/tmp/locale"))));
    assertEquals(400, localeFile.code().code, localeFile.getMessage());
    // the dry check refuses the same before anyone is asked to approve
    assertThrows(FleetException.class, () -> tool.check(TestNode.CATALOG.validate(TestNode.CATALOG.require("run_command"),
      new JsonObject().put("command", "printenv").put("env", new JsonObject().put("GIT_SSH_COMMAND", "id")))));
  }

  @Test
  void envNamesComeFromTheConf() throws Exception {
    NodeSettings s = TestNode.settings("root", dir, new JsonObject().put("commands", new JsonObject()
      .put("env", new JsonArray().add("APP_*"))));
    NodeSettings withList = new NodeSettings(s.nodeId(), s.instanceId(), "root", new JsonObject(), s.dataDir(), 1000,
      List.of("printenv"), 4096, 1000, s.tools());
    ToolHandler tool = CommandTools.handlers(withList, new HostCommands(true, new ProcessRunner(4096)),
      PathScope.of(withList)).get("run_command");
    assertEquals("blue\n", run(tool, new JsonObject().put("command", "printenv APP_COLOUR")
      .put("env", new JsonObject().put("APP_COLOUR", "blue"))).getString("stdout"));
    assertEquals(403, assertThrows(FleetException.class, () -> run(tool, new JsonObject().put("command", "printenv")
      .put("env", new JsonObject().put("TZ", "UTC")))).code().code, "the conf's list replaces the default one");
  }

  @Test
  void userSessionIsAcceptedAndNamedAsNotSupported() throws Exception {
    JsonObject r = run(runCommand(List.of("echo")), new JsonObject().put("command", "echo hi").put("user_session", true));
    assertEquals("hi\n", r.getString("stdout"));
    String note = r.getJsonObject(Unsupported.FIELD).getString("user_session");
    assertTrue(note.startsWith("not supported on " + NodeSettings.platform() + ": "), note);
  }

  @Test
  void theSignalOfAProgramKilledFromInsideIsNamed() throws Exception {
    Path script = dir.resolve("die.sh");
    Files.writeString(script, "#!/bin/sh\nkill -KILL $$\n");
    script.toFile().setExecutable(true);
    JsonObject r = new ProcessRunner(4096).run(List.of(script.toString()), null, 10_000);
    assertEquals("SIGKILL", r.getString("signal"), r.encode());
    assertEquals(false, r.getBoolean("timedOut"));
  }
}
