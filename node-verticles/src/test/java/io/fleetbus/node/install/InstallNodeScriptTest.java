package io.fleetbus.node.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/install-node.sh run for real into a temp root ({@code --root}): files, modes, owner, the
 * rendered unit (checked by {@code systemd-analyze verify} where it exists), and refusals that write nothing.
 */
@Timeout(60)
class InstallNodeScriptTest {
  private static final Path SCRIPT = Path.of("..", "scripts", "install-node.sh").toAbsolutePath().normalize();
  private static final String TOKEN = "enroll.TOKEN-s3cret_value";

  @TempDir
  Path tmp;
  private Path root;
  private Path jar;

  private record Run(int exit, String output) {
  }

  @BeforeEach
  void targetRoot() throws IOException {
    root = Files.createDirectories(tmp.resolve("root"));
    Path etc = Files.createDirectories(root.resolve("etc"));
    // a target system of its own, so useradd --prefix never touches this machine's users
    Files.writeString(etc.resolve("passwd"), "root:x:0:0:root:/root:/bin/bash\n");
    Files.writeString(etc.resolve("group"), "root:x:0:\n");
    Files.writeString(etc.resolve("shadow"), "root:*:19000:0:99999:7:::\n");
    Files.writeString(etc.resolve("gshadow"), "root:*::\n");
    jar = Files.writeString(tmp.resolve("node.jar"), "stands in for the fat jar");
  }

  @Test
  void unprivilegedNodeGetsItsOwnUserAPrivateTokenAndAHardenedUnit() throws Exception {
    String hostPasswd = Files.readString(Path.of("/etc/passwd"));
    Run run = install(Map.of("FLEETBUS_ENROLLMENT_TOKEN", TOKEN), "--hub", "10.9.8.7:5701,10.9.8.6:5701",
      "--address", "10.9.8.20", "--node-id", "web-1", "--tier", "unprivileged", "--labels", "site=lab,os=linux",
      "--allow", "echo,uptime");
    assertEquals(0, run.exit(), run.output());
    assertFalse(run.output().contains(TOKEN), "the token is never printed");

    Path env = root.resolve("etc/fleetbus/node.env");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(env)));
    String envText = Files.readString(env);
    assertTrue(envText.contains("FLEETBUS_ENROLLMENT_TOKEN=" + TOKEN + "\n"), envText);
    assertTrue(envText.contains("FLEETBUS_CLUSTER_MEMBERS=10.9.8.7:5701,10.9.8.6:5701\n"), envText);

    Path confFile = root.resolve("etc/fleetbus/node.json");
    assertFalse(Files.readString(confFile).contains(TOKEN), "the conf is group-readable: no token in it");
    JsonObject conf = new JsonObject(Files.readString(confFile));
    assertEquals("web-1", conf.getString("nodeId"));
    assertEquals("unprivileged", conf.getString("capabilityTier"));
    assertEquals("lab", conf.getJsonObject("labels").getString("site"));
    assertEquals(List.of("echo", "uptime"), conf.getJsonArray("allowlist").getList());
    assertEquals("10.9.8.20", conf.getJsonObject("cluster").getString("host"));
    assertEquals("/var/lib/fleetbus/node", conf.getString("dataDir"));
    assertEquals("stands in for the fat jar", Files.readString(root.resolve("opt/fleetbus/node/fleetbus-node.jar")));
    assertTrue(Files.exists(root.resolve("opt/fleetbus/node/cluster.xml")));

    String unit = Files.readString(unitFile());
    assertTrue(unit.contains("\nUser=fleetbus\n") && unit.contains("\nRestart=always\n"), unit);
    assertTrue(unit.contains("\nEnvironmentFile=/etc/fleetbus/node.env\n"), unit);
    assertTrue(unit.contains("-jar /opt/fleetbus/node/fleetbus-node.jar -conf /etc/fleetbus/node.json"), unit);
    assertTrue(unit.contains("\nNoNewPrivileges=yes\n") && unit.contains("\nProtectSystem=strict\n"), unit);
    assertFalse(java.util.regex.Pattern.compile("@[A-Z_]+@").matcher(unit).find(), "every placeholder is filled in:\n" + unit);
    assertFalse(unit.contains(TOKEN));

    if (isRoot()) {
      String user = Files.readAllLines(root.resolve("etc/passwd")).stream().filter(l -> l.startsWith("fleetbus:"))
        .findFirst().orElseThrow(() -> new AssertionError("no fleetbus user in the target's passwd"));
      int uid = Integer.parseInt(user.split(":")[2]);
      assertTrue(uid > 0 && uid < 1000, "a system user: " + user);
      assertEquals(uid, Files.getAttribute(root.resolve("var/lib/fleetbus/node"), "unix:uid", LinkOption.NOFOLLOW_LINKS));
      assertEquals(0, Files.getAttribute(env, "unix:uid", LinkOption.NOFOLLOW_LINKS), "root owns the token file");
    }
    assertEquals(hostPasswd, Files.readString(Path.of("/etc/passwd")), "this machine's users are untouched");
    verifyUnit();

    Run again = install(Map.of("FLEETBUS_ENROLLMENT_TOKEN", TOKEN), "--hub", "10.9.8.7:5701", "--address",
      "10.9.8.20", "--node-id", "web-1");
    assertEquals(0, again.exit(), "installing twice updates in place: " + again.output());
    assertEquals(1, Files.readAllLines(root.resolve("etc/passwd")).stream().filter(l -> l.startsWith("fleetbus:")).count());
  }

  @Test
  void rootTierRunsAsRootWithoutTheReadOnlyFence() throws Exception {
    Path tokenFile = Files.writeString(tmp.resolve("token"), TOKEN + "\n");
    Run run = install(Map.of(), "--hub", "10.9.8.7", "--address", "10.9.8.21", "--node-id", "db-1", "--tier", "root",
      "--token-file", tokenFile.toString());
    assertEquals(0, run.exit(), run.output());
    String unit = Files.readString(unitFile());
    assertTrue(unit.contains("\nUser=root\n"), unit);
    assertFalse(unit.contains("ProtectSystem"), unit);
    assertTrue(Files.readString(root.resolve("etc/fleetbus/node.env")).contains("FLEETBUS_ENROLLMENT_TOKEN=" + TOKEN + "\n"));
    assertFalse(Files.readString(root.resolve("etc/passwd")).contains("fleetbus:"), "no service user for the root tier");
    verifyUnit();

    Run removed = install(Map.of(), "--uninstall");
    assertEquals(0, removed.exit(), removed.output());
    assertFalse(Files.exists(unitFile()) || Files.exists(root.resolve("etc/fleetbus/node.env")));
    assertTrue(Files.isDirectory(root.resolve("var/lib/fleetbus/node")), "uninstall keeps the node's data");
  }

  /**
   * Issue 35: without systemd (a container, another init) the node runs as the unit would run it: --foreground installs
   * and then execs the written launcher, which is also what an init system or a container's command starts.
   */
  @Test
  void foregroundRunsTheNodeAsTheUnitWouldWithoutSystemd() throws Exception {
    // a stand-in java: says what it was started with (arguments, the unit's environment file, folder)
    Path java = Files.writeString(tmp.resolve("java"), "#!/bin/bash\necho \"ran: $* | token: "
      + "${FLEETBUS_ENROLLMENT_TOKEN:+from node.env} | data: $FLEETBUS_NODE_DATA | cwd: $PWD\"\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    Run run = installAsGiven(Map.of("FLEETBUS_ENROLLMENT_TOKEN", TOKEN), "--java", java.toString(), "--edge", "--hub",
      "10.9.8.7:7443,10.9.8.6:7443", "--edge-cert-sha256", "ab".repeat(32), "--node-id", "edge-9", "--tier", "root",
      "--foreground");
    assertEquals(0, run.exit(), run.output());
    String ran = "ran: -XX:+ExitOnOutOfMemoryError";
    String tail = "-jar " + root + "/opt/fleetbus/node/fleetbus-node.jar -conf " + root + "/etc/fleetbus/node.json"
      + " | token: from node.env | data: " + root + "/var/lib/fleetbus/node | cwd: " + root + "/var/lib/fleetbus/node";
    assertTrue(run.output().contains(ran) && run.output().contains(tail), run.output());
    assertFalse(run.output().contains(TOKEN), "the token is never printed");
    JsonObject conf = new JsonObject(Files.readString(root.resolve("etc/fleetbus/node.json")));
    assertEquals("edge", conf.getString("transport"), conf.encode());
    assertEquals(List.of("10.9.8.7:7443", "10.9.8.6:7443"), conf.getJsonObject("edge").getJsonArray("hubs").getList());
    Run launcher = run(List.of(root.resolve("opt/fleetbus/node/fleetbus-node").toString()), Map.of());
    assertEquals(0, launcher.exit(), launcher.output());
    assertTrue(launcher.output().startsWith(ran) && launcher.output().contains(tail), launcher.output());
  }

  @Test
  void badInputIsRefusedBeforeAnythingIsWritten() throws Exception {
    Map<String, String> token = Map.of("FLEETBUS_ENROLLMENT_TOKEN", TOKEN);
    assertRefused(install(token, "--hub", "10.9.8.7", "--address", "10.0.0.1", "--tier", "god"), "--tier must be");
    assertRefused(install(Map.of(), "--hub", "10.9.8.7", "--address", "10.0.0.1"), "enrollment token is needed");
    assertRefused(install(Map.of(), "--hub", "10.9.8.7", "--token", TOKEN), "not on the command line");
    assertRefused(install(token, "--address", "10.0.0.1"), "say which hub");
    assertRefused(installAsGiven(token, "--hub", "10.9.8.7", "--address", "10.0.0.1"), "say which fleet");
    assertRefused(install(Map.of("FLEETBUS_ENROLLMENT_TOKEN", "x\"; rm -rf /"), "--hub", "h", "--address", "10.0.0.1"),
      "characters a token never has");
    assertRefused(install(token, "--hub", "10.9.8.7", "--address", "10.0.0.1", "--labels", "site=\"lab\""), "label");
    assertRefused(install(token, "--hub", "10.9.8.7", "--address", "10.0.0.1", "--node-id", "../etc"), "--node-id");
    try (var left = Files.walk(root)) {
      assertEquals(List.of(), left.filter(p -> !p.equals(root) && !p.startsWith(root.resolve("etc"))).map(Path::toString).toList());
    }
    assertFalse(Files.exists(root.resolve("etc/fleetbus")), "no conf written");
  }

  private void assertRefused(Run run, String reason) {
    assertEquals(2, run.exit(), run.output());
    assertTrue(run.output().contains(reason), "expected '" + reason + "' in: " + run.output());
  }

  private Path unitFile() {
    return root.resolve("etc/systemd/system/fleetbus-node.service");
  }

  /** systemd's own check of the rendered unit; parse warnings count as failures. */
  private void verifyUnit() throws Exception {
    Path analyze = Path.of("/usr/bin/systemd-analyze");
    if (!Files.isExecutable(analyze)) {
      System.err.println("systemd-analyze not installed (apt-get install systemd): unit not verified here");
      return;
    }
    Run verify = run(List.of(analyze.toString(), "verify", unitFile().toString()), Map.of());
    assertEquals(0, verify.exit(), verify.output());
    assertFalse(verify.output().contains("fleetbus-node.service:"), "systemd-analyze found a problem: " + verify.output());
  }

  private Run install(Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("--cluster-name", "fleetbus-0123456789ab"));
    cmd.addAll(List.of(args));
    return installAsGiven(env, cmd.toArray(String[]::new));
  }

  /** The script with these arguments only ({@link #install} adds a cluster name). */
  private Run installAsGiven(Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString(), "--root", root.toString(), "--jar", jar.toString(),
      "--java", ProcessHandle.current().info().command().orElse("/usr/bin/java")));
    cmd.addAll(List.of(args));
    return run(cmd, env);
  }

  private static Run run(List<String> cmd, Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().remove("FLEETBUS_ENROLLMENT_TOKEN");
    pb.environment().remove("FLEETBUS_CLUSTER_MEMBERS");
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "finished");
    return new Run(p.exitValue(), out);
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }
}
