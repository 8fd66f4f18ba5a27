package io.fleetbus.node.grant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.node.tools.files.FileTools;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.files.PrivateMarker;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/run.sh's own conf/node.json (sudo, paths.allow "/", dataDir data/node) on a checkout whose data/hub and
 * data/node hold what a hub and a node keep there: a viewer's read_file, grep_files, list_directory and glob_files of
 * every file under both are refused, and no search returns key material. With the guard switched off
 * ({@link NodeGrant#of(NodeSettings, boolean)}), the same calls hand over the hub's signing key.
 */
@Timeout(120)
class EmbeddedDefaultTest {
  static final String KEY = "KEYMATERIAL-7d1e";
  /** What grep_files looks for: matches KEY, and an answer that echoes it does not contain KEY itself. */
  static final String KEY_PATTERN = "KEYMATERIAL.7d1e";

  @TempDir
  static Path checkout;
  static Path hubData;
  static Path nodeData;
  static List<Path> secrets = new ArrayList<>();

  @BeforeAll
  static void checkoutWithData() throws Exception {
    hubData = Files.createDirectories(checkout.resolve("data/hub"));
    nodeData = Files.createDirectories(checkout.resolve("data/node"));
    secret(hubData.resolve("keys/jwt-es256-private.pem"), "-----BEGIN PRIVATE KEY-----\n" + KEY + "-jwt\n");
    secret(hubData.resolve("keys/store.key"), KEY + "-store\n");
    secret(hubData.resolve("dev-token"), "eyJ" + KEY + "-devtoken\n");
    secret(hubData.resolve("dev-approver-token"), "eyJ" + KEY + "-approver\n");
    secret(nodeData.resolve("trust/credential.json"), "{\"secret\": \"" + KEY + "-credential\"}\n");
    secret(nodeData.resolve("trust/calls.jsonl"), "{\"args\": \"" + KEY + "-journal\"}\n");
    secret(nodeData.resolve("jobs/j1/output.log"), KEY + "-job-output\n");
    secret(nodeData.resolve("processes/logs/web.log"), KEY + "-process-log\n");
    // what HubMain and NodeMain do at start
    PrivateMarker.mark(hubData, "hub data folder");
    PrivateMarker.mark(hubData.resolve("keys"), "hub key folder");
    PrivateMarker.mark(nodeData, "node data folder");
    Files.writeString(checkout.resolve("README.md"), "nothing secret\n");
  }

  static void secret(Path file, String content) throws Exception {
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
    secrets.add(file);
  }

  /** conf/node.json as scripts/run.sh starts it from this checkout (cwd = the checkout, hub data passed by env). */
  static NodeSettings embeddedDefault(boolean hubDataByEnv) throws Exception {
    JsonObject conf = new JsonObject(Files.readString(repoRoot().resolve("conf/node.json")));
    assertEquals("sudo", conf.getString("capabilityTier"));
    assertEquals("/", conf.getJsonObject("paths").getJsonArray("allow").getString(0));
    conf.put("dataDir", checkout.resolve(conf.getString("dataDir")).toString());
    conf.getJsonObject("paths").put("sandboxDir", checkout.resolve(conf.getJsonObject("paths").getString("sandboxDir"))
      .toString());
    return NodeSettings.fromConf(hubDataByEnv ? NodeSettings.withPrivateFromEnv(conf, hubData.toString()) : conf);
  }

  static Path repoRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (!Files.exists(p.resolve("cluster.xml")) || !Files.isDirectory(p.resolve("node-verticles"))) {
      p = p.getParent();
    }
    return p;
  }

  static Map<String, ToolHandler> tools(NodeGrant grant) {
    return FileTools.handlers(PathScope.of(grant), new HostCommands(false, null));
  }

  /** Every way a viewer's file tools could reach each secret; what came back (or the refusal). */
  static List<String> leaks(Map<String, ToolHandler> tools, NodeSettings s) throws Exception {
    List<String> leaked = new ArrayList<>();
    for (Path f : secrets) {
      try {
        JsonObject r = TestNode.run(tools.get("read_file"), "read_file", new JsonObject().put("path", f.toString()), s);
        if (r.encode().contains(KEY)) {
          leaked.add("read_file " + f);
        }
      } catch (FleetException e) {
        assertEquals(403, e.code().code, e.getMessage());
        assertTrue(e.getMessage().contains("never reachable by any tool") && e.getMessage().contains("no conf key"),
          e.getMessage());
      }
      for (Path folder = f.getParent(); folder.startsWith(checkout.resolve("data")); folder = folder.getParent()) {
        leaked.addAll(tryListing(tools, s, folder, f));
      }
    }
    for (Path root : List.of(checkout, checkout.resolve("data"))) {
      leaked.addAll(tryListing(tools, s, root, null));
    }
    return leaked;
  }

  static List<String> tryListing(Map<String, ToolHandler> tools, NodeSettings s, Path folder, Path file) throws Exception {
    List<String> leaked = new ArrayList<>();
    String name = file == null ? KEY : file.getFileName().toString();
    for (String[] call : new String[][] {{"list_directory", null}, {"grep_files", KEY_PATTERN}, {"glob_files", "**/*"}}) {
      JsonObject args = new JsonObject().put("path", folder.toString());
      if (call[0].equals("grep_files")) {
        args.put("pattern", call[1]);
      } else if (call[0].equals("glob_files")) {
        args.put("pattern", call[1]);
      }
      try {
        String out = TestNode.run(tools.get(call[0]), call[0], args, s).encode();
        if (out.contains(KEY) || out.contains("\"" + name + "\"") || out.contains("/" + name + "\"")
          || out.contains("\"hub\"") || out.contains("\"node\"") || out.contains("trust")) {
          leaked.add(call[0] + " " + folder + " → " + out);
        }
      } catch (FleetException e) {
        assertEquals(403, e.code().code, call[0] + " " + folder + ": " + e.getMessage());
      }
    }
    return leaked;
  }

  @Test
  void aViewerReachesNothingUnderTheHubsAndTheNodesDataFolders() throws Exception {
    for (boolean byEnv : List.of(true, false)) {
      NodeSettings s = embeddedDefault(byEnv);
      NodeGrant grant = NodeGrant.of(s);
      List<String> leaked = leaks(tools(grant), s);
      assertTrue(leaked.isEmpty(), (byEnv ? "hub data named by FLEETBUS_PRIVATE_PATHS" : "hub data found by its marker")
        + ": " + leaked.size() + " leaks:\n" + String.join("\n", leaked));
      // the kernel ruleset leaves both out too (the hub's found by its marker beside the node's data folder)
      assertTrue(grant.excludedNow().containsAll(List.of(nodeData.toRealPath(), hubData.toRealPath())),
        grant.excludedNow().toString());
    }
  }

  @Test
  void everythingElseInTheCheckoutStaysReachable() throws Exception {
    NodeSettings s = embeddedDefault(true);
    Map<String, ToolHandler> tools = tools(NodeGrant.of(s));
    JsonObject read = TestNode.run(tools.get("read_file"), "read_file",
      new JsonObject().put("path", checkout.resolve("README.md").toString()), s);
    assertTrue(read.encode().contains("nothing secret"), read.encode());
    JsonObject list = TestNode.run(tools.get("list_directory"), "list_directory",
      new JsonObject().put("path", checkout.toString()), s);
    assertTrue(list.encode().contains("README.md") && list.encode().contains("\"data\""), list.encode());
    JsonObject grep = TestNode.run(tools.get("grep_files"), "grep_files", new JsonObject().put("path", checkout.toString())
      .put("pattern", "secret"), s);
    assertEquals(1, grep.getInteger("count"), grep.encode());
  }

  /** The fix switched off: the same viewer calls hand over the hub's signing key and every other secret. */
  @Test
  void withTheGuardOffTheSameCallsHandOverTheKeys() throws Exception {
    NodeSettings s = embeddedDefault(true);
    List<String> leaked = leaks(tools(NodeGrant.of(s, false)), s);
    assertTrue(leaked.stream().anyMatch(l -> l.contains("read_file") && l.contains("jwt-es256-private.pem")), leaked.toString());
    assertTrue(leaked.stream().anyMatch(l -> l.startsWith("grep_files " + checkout + " ")), leaked.toString());
    long readable = leaked.stream().filter(l -> l.startsWith("read_file")).count();
    assertEquals(secrets.size(), readable, leaked.toString());
    assertFalse(NodeGrant.of(s, false).excludedNow().contains(hubData.toRealPath()));
  }

  /** run_command's argument check says the same before anything starts; the node view shows the file grant. */
  @Test
  void aCommandNamingAPrivateFileIsRefusedBeforeItStartsAndTheGrantSaysWhy() throws Exception {
    NodeSettings s = embeddedDefault(true);
    NodeGrant grant = NodeGrant.of(s);
    ToolHandler run = io.fleetbus.node.tools.command.CommandTools.handlers(s,
      new HostCommands(true, new io.fleetbus.node.tools.command.ProcessRunner(4096)), PathScope.of(grant))
      .get("run_command");
    FleetException e = org.junit.jupiter.api.Assertions.assertThrows(FleetException.class, () -> TestNode.run(run,
      "run_command", new JsonObject().put("command", "cat " + hubData.resolve("dev-token")), s));
    assertEquals(403, e.code().code, e.getMessage());
    assertTrue(e.getMessage().contains("never reachable by any tool"), e.getMessage());
    JsonObject view = grant.toJson();
    assertTrue(view.getJsonArray("private").contains(hubData.toString()), view.encode());
    assertTrue(view.getJsonArray("private").contains(nodeData.toString()), view.encode());
    assertEquals(PrivateMarker.FILE_NAME, view.getString("privateMarker"));
    // what the node tells the hub in its hello (GET /api/v1/nodes/{id} shows it): the same object
    assertEquals(view, io.fleetbus.node.confine.Confinement.of(s).toJson().getJsonObject("files"));
  }

  /** A second name (hard link) of a private file placed in the scope is refused; with the guard off it reads. */
  @Test
  void aHardLinkToAPrivateFileIsRefused() throws Exception {
    NodeSettings s = embeddedDefault(true);
    Path link = checkout.resolve("innocent.txt");
    Files.deleteIfExists(link);
    // a node that already looked (its index of private files with several names is fresh, and empty)
    Map<String, ToolHandler> running = tools(NodeGrant.of(s));
    TestNode.run(running.get("grep_files"), "grep_files", new JsonObject().put("path", checkout.toString())
      .put("pattern", KEY_PATTERN), s);
    Files.createLink(link, hubData.resolve("keys/jwt-es256-private.pem"));
    try {
      JsonObject args = new JsonObject().put("path", link.toString());
      FleetException e = org.junit.jupiter.api.Assertions.assertThrows(FleetException.class,
        () -> TestNode.run(running.get("read_file"), "read_file", args, s));
      assertTrue(e.getMessage().contains("hard link"), e.getMessage());
      JsonObject grep = TestNode.run(tools(NodeGrant.of(s)).get("grep_files"), "grep_files",
        new JsonObject().put("path", checkout.toString()).put("pattern", KEY_PATTERN), s);
      assertFalse(grep.encode().contains(KEY), grep.encode());
      assertTrue(TestNode.run(tools(NodeGrant.of(s, false)).get("read_file"), "read_file", args, s).encode().contains(KEY));
    } finally {
      Files.delete(link);
    }
  }

  /** Walks of everything under the checkout: no private file is visited, however named. */
  @Test
  void noFileUnderTheDataFoldersIsEverListedByAGlob() throws Exception {
    NodeSettings s = embeddedDefault(false);
    JsonObject glob = TestNode.run(tools(NodeGrant.of(s)).get("glob_files"), "glob_files",
      new JsonObject().put("path", checkout.toString()).put("pattern", "**"), s);
    try (Stream<Path> all = Files.walk(checkout.resolve("data"))) {
      for (Path p : all.toList()) {
        assertFalse(glob.encode().contains(p.toString() + "\""), p + " listed: " + glob.encode());
      }
    }
  }
}
