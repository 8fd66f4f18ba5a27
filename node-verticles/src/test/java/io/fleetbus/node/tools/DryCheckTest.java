package io.fleetbus.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.command.CommandTools;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.node.tools.files.FileTools;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's dry check (issue 19, item 6): every refusal run_command, run_script and the file tools would give comes
 * from {@link ToolDispatcher#check} without anything being run or written, and a call the node would run passes.
 */
@Timeout(60)
class DryCheckTest {
  @TempDir
  Path dir;
  Vertx vertx;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private ToolDispatcher dispatcher(String tier) {
    NodeSettings s = TestNode.settings(tier, dir, new JsonObject().put("paths", new JsonObject()
      .put("allow", new io.vertx.core.json.JsonArray().add(dir.toString()))));
    PathScope scope = PathScope.of(s);
    HostCommands host = new HostCommands(!s.unprivileged(), new ProcessRunner(4096));
    Map<String, ToolHandler> handlers = new HashMap<>(CommandTools.handlers(s, host, scope));
    handlers.putAll(FileTools.handlers(scope, host));
    return new ToolDispatcher(vertx, TestNode.CATALOG, handlers, s);
  }

  private static ToolCall call(String tool, JsonObject args) {
    return new ToolCall("c1", null, "alice", List.of("admin"), tool, args, "test-node", null, 5000, false, null);
  }

  /** The refusal of a dry check, or null when the node would run the call. */
  private static FleetException refusal(ToolDispatcher d, String tool, JsonObject args) throws Exception {
    Future<Void> checked = d.check(call(tool, args));
    try {
      checked.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
      return null;
    } catch (java.util.concurrent.ExecutionException e) {
      return assertInstanceOf(FleetException.class, e.getCause(), String.valueOf(e.getCause()));
    }
  }

  @Test
  void runCommandRefusalsComeFromTheDryCheck() throws Exception {
    ToolDispatcher sudo = dispatcher("sudo");
    Object[][] cases = {
      {"rm -rf /tmp/x", 403, "allowlist"},
      {"echo hi; id", 400, "shell operator"},
      {"bash -c id", 403, "allowlist"},
      {"/bin/echo hi", 403, "is a path"},
      {"echo $(id)", 400, "shell operator"},
    };
    for (Object[] c : cases) {
      FleetException e = refusal(sudo, "run_command", new JsonObject().put("command", c[0]));
      assertTrue(e != null, c[0] + " passed the dry check");
      assertEquals(c[1], e.code().code, c[0] + ": " + e.getMessage());
      assertTrue(e.getMessage().contains((String) c[2]), c[0] + ": " + e.getMessage());
    }
    FleetException outside = refusal(sudo, "run_command", new JsonObject().put("command", "cat /etc/passwd"));
    assertEquals(403, outside.code().code, outside.getMessage());
    assertNull(refusal(sudo, "run_command", new JsonObject().put("command", "echo would-run")), "an allowed command passes");
  }

  @Test
  void aBashCommandOnTheAllowlistMeetsTheArgumentGrammar() throws Exception {
    NodeSettings s = TestNode.settings("root", dir, null);
    HostCommands host = new HostCommands(true, new ProcessRunner(4096));
    ToolDispatcher d = new ToolDispatcher(vertx, TestNode.CATALOG, CommandTools.handlers(new NodeSettings(s.nodeId(),
      s.instanceId(), "root", new JsonObject(), s.dataDir(), 1000, List.of("bash", "echo"), 4096, 1000, s.tools()), host,
      PathScope.of(s)), s);
    FleetException e = refusal(d, "run_command", new JsonObject().put("command", "bash -c id"));
    assertEquals(403, e.code().code, e.getMessage());
    assertTrue(e.getMessage().contains("interpreter"), e.getMessage());
  }

  @Test
  void unprivilegedNodesRefuseTierThreeBeforeAnyToolCheck() throws Exception {
    FleetException e = refusal(dispatcher("unprivileged"), "run_command", new JsonObject().put("command", "echo x"));
    assertEquals(403, e.code().code);
    assertTrue(e.getMessage().contains("capability tier 'unprivileged'"), e.getMessage());
  }

  @Test
  void fileToolsCheckTheirPathScopeAndWriteNothing() throws Exception {
    ToolDispatcher sudo = dispatcher("sudo");
    Path inside = dir.resolve("new/file.txt");
    assertNull(refusal(sudo, "write_file", new JsonObject().put("path", inside.toString()).put("content", "x")));
    assertFalse(Files.exists(inside.getParent()), "a dry check creates nothing");
    FleetException etc = refusal(sudo, "write_file", new JsonObject().put("path", "/etc/fleetbus-x").put("content", "x"));
    assertEquals(403, etc.code().code);
    assertTrue(etc.getMessage().contains("outside this node's path scope"), etc.getMessage());
    assertTrue(etc.getMessage().contains("system folders") && etc.getMessage().contains("conf capabilityTier"),
      "the refusal names the rule and the conf key that would allow it: " + etc.getMessage());
    FleetException relative = refusal(sudo, "create_dir", new JsonObject().put("path", "../up"));
    assertEquals(400, relative.code().code, relative.getMessage());
    // a file that is not there yet: 404 now (the hub does not treat that as final: it may exist when the call runs)
    FleetException missing = refusal(sudo, "edit_file", new JsonObject().put("path", inside.toString())
      .put("target_content", "a").put("replacement_content", "b"));
    assertEquals(404, missing.code().code, missing.getMessage());
    FleetException deleteOutside = refusal(sudo, "delete_path", new JsonObject().put("path", "/etc/hostname"));
    assertEquals(403, deleteOutside.code().code, deleteOutside.getMessage());
  }

  @Test
  void runScriptChecksItsInterpreterAndFolder() throws Exception {
    ToolDispatcher sudo = dispatcher("sudo");
    assertNull(refusal(sudo, "run_script", new JsonObject().put("script", "echo hi").put("interpreter", "bash")));
    FleetException cwd = refusal(sudo, "run_script", new JsonObject().put("script", "echo hi").put("interpreter", "bash")
      .put("working_directory", "/etc"));
    assertEquals(403, cwd.code().code, cwd.getMessage());
  }
}
