package io.fleetbus.node.tools.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.command.CommandTools;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.node.tools.files.FileTools;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Traversal, link and injection attempts against the file tools and run_command. Every attempt must
 * be refused with the expected code, and the whole fixture tree (every path, size, mtime and content
 * digest) must be exactly as before, so a refusal that still wrote something would fail too.
 */
@Timeout(60)
class SandboxEscapeTest {
  private static final String PROBE = "/etc/fleetbus-sandbox-probe-" + ProcessHandle.current().pid();

  @TempDir
  static Path dir;
  static Path sandbox;
  static Path outside;
  static Map<String, NodeSettings> nodes = new HashMap<>();
  static Map<String, Map<String, ToolHandler>> tools = new HashMap<>();

  @BeforeAll
  static void fixture() throws IOException {
    sandbox = Files.createDirectories(dir.resolve("sandbox"));
    outside = Files.createDirectories(dir.resolve("outside"));
    Files.writeString(outside.resolve("secret.txt"), "top secret\n");
    Files.writeString(sandbox.resolve("inside.txt"), "inside\n");
    Files.createDirectories(sandbox.resolve("sub"));
    Files.createSymbolicLink(sandbox.resolve("link-out"), outside);
    Files.createSymbolicLink(sandbox.resolve("file-link"), outside.resolve("secret.txt"));
    Files.createSymbolicLink(sandbox.resolve("dangling"), Path.of("/nonexistent-fleetbus-target"));
    Files.createSymbolicLink(sandbox.resolve("loop1"), sandbox.resolve("loop2"));
    Files.createSymbolicLink(sandbox.resolve("loop2"), sandbox.resolve("loop1"));
    Files.createSymbolicLink(sandbox.resolve("etc-link"), Path.of("/etc"));
    // sudo and root nodes here may reach everything except the "outside" folder (and, for sudo, the system folders)
    JsonObject deny = new JsonObject().put("paths", new JsonObject().put("deny", new JsonArray().add(outside.toString())));
    for (String tier : new String[] {"unprivileged", "sudo"}) {
      NodeSettings s = TestNode.settings(tier, dir, deny);
      HostCommands host = new HostCommands(!s.unprivileged(), new ProcessRunner(4096));
      PathScope scope = PathScope.of(s);
      Map<String, ToolHandler> h = new HashMap<>(FileTools.handlers(scope, host));
      h.putAll(CommandTools.handlers(s, host, scope));
      nodes.put(tier, s);
      tools.put(tier, h);
    }
  }

  static Stream<Arguments> attempts() {
    String sb = dir.resolve("sandbox").toString();
    String out = dir.resolve("outside").toString();
    String secret = out + "/secret.txt";
    return Stream.of(
      // read_file
      a("read: dot-dot out of the sandbox", "unprivileged", "read_file", p(sb + "/../outside/secret.txt"), 400),
      a("read: absolute path outside", "unprivileged", "read_file", p(secret), 403),
      a("read: file symlink leading out", "unprivileged", "read_file", p(sb + "/file-link"), 403),
      a("read: through a folder symlink leading out", "unprivileged", "read_file", p(sb + "/link-out/secret.txt"), 403),
      a("read: relative path", "unprivileged", "read_file", p("outside/secret.txt"), 400),
      a("read: relative path that would be inside", "unprivileged", "read_file", p("sandbox/inside.txt"), 400),
      a("read: trailing slash", "unprivileged", "read_file", p(sb + "/inside.txt/"), 400),
      a("read: NUL byte", "unprivileged", "read_file", p(sb + "/inside.txt\0.png"), 400),
      a("read: fullwidth solidus look-alike", "unprivileged", "read_file", p(sb + "\uff0f..\uff0foutside/secret.txt"), 400),
      a("read: two-dot-leader look-alike", "unprivileged", "read_file", p(sb + "/\u2025/outside/secret.txt"), 400),
      a("read: division slash look-alike", "unprivileged", "read_file", p(sb + "\u2215..\u2215outside"), 400),
      a("read: zero-width space", "unprivileged", "read_file", p(sb + "/\u200b../outside/secret.txt"), 400),
      a("read: right-to-left override", "unprivileged", "read_file", p(sb + "/\u202etxt.edisni"), 400),
      a("read: /etc/passwd", "unprivileged", "read_file", p("/etc/passwd"), 403),
      a("read: /proc/self/environ", "unprivileged", "read_file", p("/proc/self/environ"), 403),
      a("read: double slash", "unprivileged", "read_file", p("/" + secret), 400),
      a("read: dot segment", "unprivileged", "read_file", p(sb + "/./inside.txt"), 400),
      a("read: home shorthand", "unprivileged", "read_file", p("~/.ssh/id_rsa"), 400),
      a("read: dangling symlink", "unprivileged", "read_file", p(sb + "/dangling"), 403),
      a("read: symlink loop", "unprivileged", "read_file", p(sb + "/loop1"), 403),
      a("read: backslash traversal", "unprivileged", "read_file", p(sb + "\\..\\outside\\secret.txt"), 400),
      a("read: sudo node, /etc/shadow", "sudo", "read_file", p("/etc/shadow"), 403),
      a("read: sudo node, symlink into /etc", "sudo", "read_file", p(sb + "/etc-link/passwd"), 403),
      a("read: sudo node, /proc/1/environ", "sudo", "read_file", p("/proc/1/environ"), 403),
      a("read: sudo node, /root", "sudo", "read_file", p("/root/.bashrc"), 403),
      a("read: sudo node, /dev/zero", "sudo", "read_file", p("/dev/zero"), 403),
      // list_directory
      a("list: folder outside", "unprivileged", "list_directory", p(out), 403),
      a("list: folder symlink leading out", "unprivileged", "list_directory", p(sb + "/link-out"), 403),
      a("list: the root folder", "unprivileged", "list_directory", p("/"), 403),
      a("list: sandbox/..", "unprivileged", "list_directory", p(sb + "/.."), 400),
      a("list: file URL", "unprivileged", "list_directory", p("file:///etc"), 400),
      a("list: sudo node, /etc", "sudo", "list_directory", p("/etc"), 403),
      // glob_files
      a("glob: search root outside", "unprivileged", "glob_files", new JsonObject().put("path", out).put("pattern", "*"), 403),
      a("glob: pattern climbing out", "unprivileged", "glob_files", new JsonObject().put("path", sb).put("pattern", "../outside/*"), 400),
      a("glob: absolute pattern", "unprivileged", "glob_files", new JsonObject().put("path", sb).put("pattern", "/etc/*"), 400),
      a("glob: root is a link leading out", "unprivileged", "glob_files", new JsonObject().put("path", sb + "/link-out").put("pattern", "**"), 403),
      // grep_files
      a("grep: search root outside", "unprivileged", "grep_files", new JsonObject().put("path", out).put("pattern", "secret"), 403),
      a("grep: file symlink leading out", "unprivileged", "grep_files", new JsonObject().put("path", sb + "/file-link").put("pattern", "secret"), 403),
      a("grep: include glob climbing out", "unprivileged", "grep_files", new JsonObject().put("path", sb).put("pattern", "x").put("glob", "../*"), 400),
      a("grep: /etc", "unprivileged", "grep_files", new JsonObject().put("path", "/etc").put("pattern", "root"), 403),
      a("grep: sudo node, /etc via symlink", "sudo", "grep_files", new JsonObject().put("path", sb + "/etc-link").put("pattern", "root"), 403),
      // write_file
      a("write: file outside", "unprivileged", "write_file", w(secret), 403),
      a("write: through a file symlink", "unprivileged", "write_file", w(sb + "/file-link"), 403),
      a("write: new file through a folder symlink", "unprivileged", "write_file", w(sb + "/link-out/new.txt"), 403),
      a("write: dot-dot", "unprivileged", "write_file", w(sb + "/../outside/secret.txt"), 400),
      a("write: under /etc", "unprivileged", "write_file", w(PROBE), 403),
      a("write: dangling symlink", "unprivileged", "write_file", w(sb + "/dangling"), 403),
      a("write: NUL byte", "unprivileged", "write_file", w(sb + "/new\0.txt"), 400),
      a("write: trailing slash", "unprivileged", "write_file", w(sb + "/inside.txt/"), 400),
      a("write: relative path", "unprivileged", "write_file", w("new.txt"), 400),
      a("write: sudo node, under /etc", "sudo", "write_file", w(PROBE), 403),
      a("write: sudo node, via symlink into /etc", "sudo", "write_file", w(sb + "/etc-link/fleetbus-probe"), 403),
      a("write: sudo node, denied folder", "sudo", "write_file", w(secret), 403),
      a("edit: through a file symlink", "unprivileged", "edit_file", new JsonObject().put("path", sb + "/file-link")
        .put("target_content", "top").put("replacement_content", "pwned"), 403),
      a("delete: symlink's target outside", "unprivileged", "delete_path", p(sb + "/link-out/secret.txt"), 403),
      a("delete: the sandbox itself", "unprivileged", "delete_path", new JsonObject().put("path", sb).put("recursive", true), 403),
      a("create_dir: through a folder symlink", "unprivileged", "create_dir", p(sb + "/link-out/newdir"), 403),
      // run_command
      a("cmd: unprivileged node", "unprivileged", "run_command", c("echo hi"), 403),
      a("cmd: command chaining", "sudo", "run_command", c("echo hi; cat " + secret), 400),
      a("cmd: command substitution", "sudo", "run_command", c("echo $(cat /etc/shadow)"), 400),
      a("cmd: backticks", "sudo", "run_command", c("echo `id`"), 400),
      a("cmd: redirect into /etc", "sudo", "run_command", c("echo hi > " + PROBE), 400),
      a("cmd: newline injection", "sudo", "run_command", c("echo hi\ncat /etc/shadow"), 400),
      a("cmd: operator inside an extra argument", "sudo", "run_command", c("echo").put("args", new JsonArray().add("a; rm -rf /")), 400),
      a("cmd: program given as a path", "sudo", "run_command", c("/bin/cat /etc/passwd"), 403),
      a("cmd: program off the allowlist", "sudo", "run_command", c("rm -rf " + out), 403),
      a("cmd: allowed program reading /etc", "sudo", "run_command", c("cat /etc/shadow"), 403),
      a("cmd: allowed program reading a denied folder", "sudo", "run_command", c("cat " + secret), 403),
      a("cmd: relative climb from cwd into /etc", "sudo", "run_command", c("cat ../../../../../../../etc/shadow").put("cwd", sb), 403),
      a("cmd: argument through a symlink into /etc", "sudo", "run_command", c("cat " + sb + "/etc-link/shadow"), 403),
      a("cmd: option value naming /etc", "sudo", "run_command", c("ls --directory=/etc"), 403),
      a("cmd: working folder in /etc", "sudo", "run_command", c("ls").put("cwd", "/etc"), 403),
      a("cmd: working folder by dot-dot", "sudo", "run_command", c("ls").put("cwd", sb + "/../outside"), 400),
      a("cmd: destructive pattern on an allowed program", "sudo", "run_command", c("echo reboot now"), 403),
      a("script: destructive pattern on a sudo node", "sudo", "run_script", new JsonObject().put("script", "rm -rf /"), 403),
      a("script: working folder outside", "sudo", "run_script", new JsonObject().put("script", "ls").put("working_directory", out), 403));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("attempts")
  void attemptIsRefusedAndNothingChanges(String label, String tier, String tool, JsonObject args, int code) throws Exception {
    Map<String, String> before = snapshot();
    FleetException e = assertThrows(FleetException.class,
      () -> TestNode.run(tools.get(tier).get(tool), tool, args, nodes.get(tier)), label + " was not refused");
    assertEquals(code, e.code().code, label + ": " + e.getMessage());
    assertFalse(e.getMessage().contains("top secret"), "the refusal leaks the secret: " + e.getMessage());
    assertEquals(before, snapshot(), label + " changed the file tree");
    assertFalse(Files.exists(Path.of(PROBE), LinkOption.NOFOLLOW_LINKS), label + " wrote under /etc");
    assertFalse(Files.exists(Path.of("/nonexistent-fleetbus-target")), label + " created a dangling link's target");
  }

  @Test
  void thereAreAtLeastFortyAttempts() {
    assertTrue(attempts().count() >= 40);
  }

  @Test
  void globAndGrepInsideTheSandboxNeverFollowLinksOut() throws Exception {
    NodeSettings s = nodes.get("unprivileged");
    JsonArray files = TestNode.run(tools.get("unprivileged").get("glob_files"), "glob_files",
      new JsonObject().put("path", sandbox.toString()).put("pattern", "**"), s).getJsonArray("files");
    assertEquals(new JsonArray().add(sandbox.resolve("inside.txt").toString()), files);
    JsonObject grep = TestNode.run(tools.get("unprivileged").get("grep_files"), "grep_files",
      new JsonObject().put("path", sandbox.toString()).put("pattern", "secret|root"), s);
    assertEquals(0, grep.getInteger("count"), grep.encode());
    JsonObject sudoGrep = TestNode.run(tools.get("sudo").get("grep_files"), "grep_files",
      new JsonObject().put("path", dir.toString()).put("pattern", "top secret"), nodes.get("sudo"));
    assertEquals(0, sudoGrep.getInteger("count"), "the denied folder was searched: " + sudoGrep.encode());
  }

  @Test
  void insideTheSandboxTheToolsWork() throws Exception {
    NodeSettings s = nodes.get("unprivileged");
    JsonObject r = TestNode.run(tools.get("unprivileged").get("read_file"), "read_file",
      new JsonObject().put("path", sandbox + "/inside.txt"), s);
    assertEquals("inside\n", r.getString("content"));
    Path made = sandbox.resolve("sub/made.txt");
    TestNode.run(tools.get("unprivileged").get("write_file"), "write_file",
      new JsonObject().put("path", made.toString()).put("content", "ok"), s);
    assertEquals("ok", Files.readString(made));
    Files.delete(made);
  }

  private static JsonObject p(String path) {
    return new JsonObject().put("path", path);
  }

  private static JsonObject w(String path) {
    return new JsonObject().put("path", path).put("content", "pwned");
  }

  private static JsonObject c(String command) {
    return new JsonObject().put("command", command);
  }

  private static Arguments a(String label, String tier, String tool, JsonObject args, int code) {
    return Arguments.of(label, tier, tool, args, code);
  }

  /** Every entry under the fixture: kind, size, mtime and a digest of file content. */
  private static Map<String, String> snapshot() throws IOException {
    Map<String, String> snap = new TreeMap<>();
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String digest = a.isRegularFile() ? digest(p) : a.isSymbolicLink() ? Files.readSymbolicLink(p).toString() : "";
        snap.put(dir.relativize(p).toString(), a.size() + "|" + a.lastModifiedTime().toMillis() + "|" + digest);
      }
    }
    snap.keySet().removeIf(k -> k.startsWith("data"));
    return snap;
  }

  private static String digest(Path p) throws IOException {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
