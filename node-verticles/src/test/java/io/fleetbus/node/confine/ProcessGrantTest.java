package io.fleetbus.node.confine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.ToolSettings;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The process grant read from a node's conf ({@code commands.network}, {@code commands.limits}) and what the node
 * reports of it: the kernel's ABI decides what is handled (TCP from 4, scopes from 6), nothing is claimed beyond it.
 */
class ProcessGrantTest {
  static ProcessGrant fromCommands(JsonObject commands, boolean sudo) {
    JsonObject confinement = ToolSettings.fromConf(new JsonObject().put("commands", commands), Path.of("data"))
      .confinement();
    return ProcessGrant.fromConf(confinement, sudo);
  }

  @Test
  void networkAndLimitsComeFromTheCommandsKeys() {
    ProcessGrant defaults = fromCommands(new JsonObject(), true);
    assertEquals(List.of(53, 80, 443), defaults.network().connect());
    assertTrue(defaults.network().bind().isEmpty());
    assertEquals(new ProcessGrant.Limits(256, 600, 1024), defaults.limits());
    assertEquals(ProcessGrant.Capabilities.ALL, defaults.capabilities());
    assertEquals(ProcessGrant.Capabilities.ESCAPES, fromCommands(new JsonObject(), false).capabilities());
    assertEquals(new ProcessGrant.Limits(1024, 600, 0), fromCommands(new JsonObject(), false).limits(), "root's defaults");
    assertTrue(fromCommands(new JsonObject().put("network", true), true).network().open());
    ProcessGrant none = fromCommands(new JsonObject().put("network", false), true);
    assertFalse(none.network().open());
    assertTrue(none.network().connect().isEmpty());
    assertEquals(List.of(8443), fromCommands(new JsonObject().put("network", new JsonArray().add(8443)), true)
      .network().connect());
    ProcessGrant both = fromCommands(new JsonObject().put("network", new JsonObject().put("connect", new JsonArray().add(22))
      .put("bind", new JsonArray().add(9000))), true);
    assertEquals(List.of(22), both.network().connect());
    assertEquals(List.of(9000), both.network().bind());
    assertEquals(new ProcessGrant.Limits(10, 600, 0), fromCommands(new JsonObject().put("limits", new JsonObject()
      .put("processes", 10).put("fileSizeMb", 0)), true).limits());
  }

  @Test
  void aBadValueSaysWhichKeyAndWhatItTakes() {
    IllegalArgumentException port = assertThrows(IllegalArgumentException.class, () -> fromCommands(new JsonObject()
      .put("network", new JsonArray().add(70000)), true));
    assertTrue(port.getMessage().contains("commands.network"), port.getMessage());
    IllegalArgumentException word = assertThrows(IllegalArgumentException.class, () -> fromCommands(new JsonObject()
      .put("network", "yes"), true));
    assertTrue(word.getMessage().contains("true, false, a list of TCP ports"), word.getMessage());
    IllegalArgumentException limit = assertThrows(IllegalArgumentException.class, () -> fromCommands(new JsonObject()
      .put("limits", new JsonObject().put("cpuSeconds", -1)), true));
    assertTrue(limit.getMessage().contains("commands.limits.cpuSeconds"), limit.getMessage());
  }

  /** A root node whose scope holds no programs still runs its allowlisted ones (scope mode executes them too). */
  @Test
  void aRootNodeWithANarrowScopeRunsItsAllowlist(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(Landlock.abi() > 0, "no Landlock on this kernel");
    Path data = dir.resolve("data");
    io.fleetbus.node.settings.NodeSettings root = new io.fleetbus.node.settings.NodeSettings("narrow", "i1", "root", new JsonObject(), data,
      1000, List.of("echo"), 4096, 1000, ToolSettings.fromConf(new JsonObject().put("paths", new JsonObject()
        .put("allow", new JsonArray().add(dir.resolve("scope").toString()))), data));
    java.nio.file.Files.createDirectories(dir.resolve("scope"));
    Confinement c = Confinement.of(root);
    JsonObject r = new io.fleetbus.node.tools.command.ProcessRunner(4096, c.spawner(() -> java.util.Set.of("echo")))
      .run(List.of("echo", "hi"), dir.resolve("scope"), 5000);
    assertEquals("hi\n", r.getString("stdout"), r.encode());
  }

  @Test
  void theReportFollowsTheKernelsAbi() {
    ProcessGrant grant = fromCommands(new JsonObject(), true);
    for (int abi : new int[] {3, 5, 7}) {
      Confinement c = new Confinement(Confinement.Mode.STRICT, true, abi, List.of(Path.of("/tmp")), List.of(), List.of(),
        grant);
      JsonObject handled = c.toJson().getJsonObject("handled");
      assertEquals(abi >= 4, handled.getBoolean("net"), "ABI " + abi + ": " + handled.encode());
      assertEquals(abi >= 6, handled.getBoolean("scope"), "ABI " + abi + ": " + handled.encode());
      assertTrue(handled.getBoolean("fs"));
      assertEquals(new JsonArray().add(53).add(80).add(443), c.toJson().getJsonObject("network").getJsonArray("connect"));
      assertEquals(256, c.toJson().getJsonObject("limits").getInteger("processes"));
    }
    assertEquals(0, Landlock.handledNet(3));
    assertEquals(Landlock.NET_BIND_TCP | Landlock.NET_CONNECT_TCP, Landlock.handledNet(4));
    assertEquals(0, Landlock.scopes(5));
    assertEquals(Landlock.SCOPE_SIGNAL | Landlock.SCOPE_ABSTRACT_UNIX_SOCKET, Landlock.scopes(6));
  }
}
