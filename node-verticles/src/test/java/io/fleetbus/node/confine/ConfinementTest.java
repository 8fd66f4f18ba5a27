package io.fleetbus.node.confine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.RuntimeConfig;
import io.fleetbus.node.settings.ToolSettings;
import io.fleetbus.node.tools.NodeTools;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel holds alone: GTFOBins-style payloads for git, tar, find, awk, env and xargs (read a secret outside the
 * scope, write outside it, exec a shell) are started exactly as written — no argument rules in front — from a sudo
 * node's confined launcher, and each is refused or fails inside the child; the tree outside the scope is
 * byte-identical afterwards. The same payloads started unconfined succeed (so this test can fail).
 * Real processes, the real kernel (skipped with a message where it has no Landlock).
 */
@Timeout(300)
class ConfinementTest {
  static final Set<String> ALLOWLIST = Set.of("git", "tar", "find", "awk", "env", "xargs", "echo", "cat", "ls");
  static final String SECRET = "FLEETBUS-SECRET-1f3c";
  /** What a shell prints when it really ran: computed, so an error message that quotes the command never holds it. */
  static final String EXECUTED = "PWNED-42";
  static final String ECHO = "echo PWNED-$((6*7))";

  @TempDir
  static Path dir;
  static Path scope;
  static Path outside;
  static Path secret;
  static NodeSettings sudo;

  /** One payload: argv (with {S} = secret file, {O} = outside folder, {I} = scope folder) and how success looks. */
  record Payload(String program, String what, List<String> argv, String kind) {
    @Override
    public String toString() {
      return program + " " + what;
    }
  }

  @BeforeAll
  static void fixture() throws Exception {
    scope = Files.createDirectories(dir.resolve("scope"));
    outside = Files.createDirectories(dir.resolve("outside"));
    secret = outside.resolve("secret.txt");
    Files.writeString(secret, SECRET + "\n");
    Files.writeString(scope.resolve("inside.txt"), "inside\n");
    Files.writeString(scope.resolve("list.txt"), scope.resolve("inside.txt") + "\n");
    sudo = node("sudo", new JsonObject());
  }

  static NodeSettings node(String tier, JsonObject extra) {
    JsonObject conf = new JsonObject().put("paths", new JsonObject().put("allow", new JsonArray().add(scope.toString()))
      .put("sandboxDir", dir.resolve("sandbox").toString())).mergeIn(extra);
    Path data = dir.resolve("data-" + tier);
    return new NodeSettings("confined", "i1", tier, new JsonObject(), data, 1000, List.copyOf(ALLOWLIST), 64 * 1024, 1000,
      ToolSettings.fromConf(conf, data));
  }

  static List<Payload> payloads() {
    List<Payload> p = new ArrayList<>();
    String sh = "sh -c '" + ECHO + "; echo x > {O}/shell-wrote'";
    // git (GTFOBins: shell, file-read, file-write, sudo)
    p.add(new Payload("git", "alias runs a shell", List.of("git", "-c", "alias.x=!" + sh, "x"), "exec"));
    p.add(new Payload("git", "alias reads the secret", List.of("git", "-c", "alias.x=!cat {S}", "x"), "read"));
    p.add(new Payload("git", "diff --no-index reads the secret", List.of("git", "diff", "--no-index", "/dev/null", "{S}"), "read"));
    p.add(new Payload("git", "core.pager runs a shell", List.of("git", "-c", "core.pager=" + sh, "-p", "help"), "exec"));
    p.add(new Payload("git", "core.fsmonitor runs a shell", List.of("git", "-C", "{I}", "-c", "core.fsmonitor=" + sh,
      "status"), "exec"));
    p.add(new Payload("git", "init writes outside", List.of("git", "init", "-q", "{O}/repo"), "write"));
    p.add(new Payload("git", "ls-remote --upload-pack runs a shell", List.of("git", "ls-remote", "--upload-pack=" + sh, "{I}"),
      "exec"));
    p.add(new Payload("git", "core.sshCommand runs a shell", List.of("git", "-c", "core.sshCommand=" + sh, "ls-remote",
      "ssh://x/y"), "exec"));
    p.add(new Payload("git", "-C outside reads its folder", List.of("git", "-C", "{O}", "ls-files", "--others"), "list"));
    p.add(new Payload("git", "hash-object reads the secret", List.of("git", "hash-object", "--no-filters", "{S}"), "hash"));
    p.add(new Payload("git", "--exec-path runs its helper", List.of("git", "--exec-path={O}", "pwn"), "exec-path"));
    // tar
    p.add(new Payload("tar", "checkpoint-action runs a shell", List.of("tar", "-cf", "/dev/null", "{I}/inside.txt",
      "--checkpoint=1", "--checkpoint-action=exec=" + sh), "exec"));
    p.add(new Payload("tar", "use-compress-program runs a shell", List.of("tar", "-cf", "{I}/x.tar", "--use-compress-program="
      + sh, "{I}/inside.txt"), "exec"));
    p.add(new Payload("tar", "-I runs a shell", List.of("tar", "-I", sh, "-cf", "{I}/y.tar", "{I}/inside.txt"), "exec"));
    p.add(new Payload("tar", "reads the secret to stdout", List.of("tar", "-cf", "-", "{S}"), "read"));
    p.add(new Payload("tar", "writes an archive outside", List.of("tar", "-cf", "{O}/out.tar", "{I}/inside.txt"), "write"));
    p.add(new Payload("tar", "extracts outside", List.of("tar", "-C", "{O}", "-xf", "{I}/archive.tar"), "write-extract"));
    p.add(new Payload("tar", "to-command runs a shell", List.of("tar", "-xf", "{I}/archive.tar", "--to-command=" + sh), "exec"));
    p.add(new Payload("tar", "info-script runs a shell", List.of("tar", "-cf", "{I}/z.tar", "-L", "1", "-F", sh,
      "{I}/inside.txt"), "exec"));
    p.add(new Payload("tar", "rsh-command runs a shell", List.of("tar", "-cf", "x:{I}/w.tar", "--rsh-command=/bin/sh",
      "{I}/inside.txt"), "exec-any"));
    // find
    p.add(new Payload("find", "-exec runs a shell", List.of("find", "{I}", "-maxdepth", "0", "-exec", "sh", "-c",
      ECHO + "; echo x > {O}/shell-wrote", ";"), "exec"));
    p.add(new Payload("find", "-exec cat reads the secret", List.of("find", "{S}", "-exec", "cat", "{}", ";"), "read"));
    p.add(new Payload("find", "-execdir runs a shell", List.of("find", "{I}/inside.txt", "-execdir", "sh", "-c",
      ECHO, ";"), "exec"));
    p.add(new Payload("find", "-fprint writes outside", List.of("find", "{I}", "-maxdepth", "0", "-fprint", "{O}/found"), "write"));
    p.add(new Payload("find", "-fprintf writes outside", List.of("find", "{I}", "-maxdepth", "0", "-fprintf", "{O}/found2",
      "%p"), "write"));
    p.add(new Payload("find", "lists the outside folder", List.of("find", "{O}"), "list"));
    p.add(new Payload("find", "-delete removes outside", List.of("find", "{S}", "-delete"), "delete"));
    p.add(new Payload("find", "-ok runs a shell", List.of("find", "{I}", "-maxdepth", "0", "-ok", "sh", "-c",
      ECHO, ";"), "exec-any"));
    p.add(new Payload("find", "-exec env sh", List.of("find", "{I}", "-maxdepth", "0", "-exec", "env", "sh", "-c",
      ECHO, ";"), "exec"));
    p.add(new Payload("find", "-newer reads outside metadata", List.of("find", "{O}", "-newer", "{S}"), "list"));
    // awk
    p.add(new Payload("awk", "system() runs a shell", List.of("awk", "BEGIN{system(\"" + ECHO + "\")}"), "exec"));
    p.add(new Payload("awk", "reads the secret", List.of("awk", "{print}", "{S}"), "read"));
    p.add(new Payload("awk", "getline reads the secret", List.of("awk",
      "BEGIN{while((getline l < \"{S}\")>0) print l}"), "read"));
    p.add(new Payload("awk", "print > writes outside", List.of("awk", "BEGIN{print \"x\" > \"{O}/awk-wrote\"}"), "write"));
    p.add(new Payload("awk", "pipe to a shell", List.of("awk", "BEGIN{print \"" + ECHO + "\" | \"sh\"}"), "exec"));
    p.add(new Payload("awk", "command | getline", List.of("awk", "BEGIN{\"" + ECHO + "\" | getline l; print l}"),
      "exec"));
    // /etc/hostname and the like are granted read-only (SystemReads); the shadow file never is
    p.add(new Payload("awk", "reads /etc/shadow", List.of("awk", "{print}", "/etc/shadow"), "read-etc"));
    p.add(new Payload("awk", "appends outside", List.of("awk", "BEGIN{print \"x\" >> \"{S}\"}"), "append"));
    p.add(new Payload("awk", "-f program outside", List.of("awk", "-f", "{S}"), "read-prog"));
    p.add(new Payload("awk", "system() writes outside", List.of("awk", "BEGIN{system(\"echo x > {O}/sys-wrote\")}"), "write"));
    // env
    p.add(new Payload("env", "runs a shell", List.of("env", "sh", "-c", ECHO), "exec"));
    p.add(new Payload("env", "runs /bin/sh by path", List.of("env", "/bin/sh", "-c", ECHO), "exec"));
    p.add(new Payload("env", "runs bash", List.of("env", "bash", "-c", ECHO), "exec"));
    p.add(new Payload("env", "cat reads the secret", List.of("env", "cat", "{S}"), "read"));
    p.add(new Payload("env", "awk writes outside", List.of("env", "awk", "BEGIN{print \"x\" > \"{O}/env-wrote\"}"), "write"));
    p.add(new Payload("env", "-S splits into a shell", List.of("env", "-S", "sh -c '" + ECHO + "'"), "exec"));
    p.add(new Payload("env", "perl one-liner", List.of("env", "perl", "-e", "print \"PWNED-\".(6*7)"), "exec-any"));
    p.add(new Payload("env", "python one-liner", List.of("env", "python3", "-c", "print('PWNED-'+str(6*7))"), "exec-any"));
    p.add(new Payload("env", "ls lists outside", List.of("env", "ls", "{O}"), "list"));
    p.add(new Payload("env", "git alias shell", List.of("env", "git", "-c", "alias.x=!" + sh, "x"), "exec"));
    // xargs
    p.add(new Payload("xargs", "runs a shell", List.of("xargs", "sh", "-c", ECHO), "exec"));
    p.add(new Payload("xargs", "-a reads the secret", List.of("xargs", "-a", "{S}", "echo"), "read"));
    p.add(new Payload("xargs", "-a + cat reads the secret", List.of("xargs", "-a", "{I}/list.txt", "cat", "{S}"), "read"));
    p.add(new Payload("xargs", "awk writes outside", List.of("xargs", "awk", "BEGIN{print \"x\" > \"{O}/xargs-wrote\"}"), "write"));
    p.add(new Payload("xargs", "env sh", List.of("xargs", "env", "sh", "-c", ECHO), "exec"));
    p.add(new Payload("xargs", "-I runs a shell", List.of("xargs", "-a", "{I}/list.txt", "-I", "{}", "sh", "-c",
      ECHO), "exec"));
    p.add(new Payload("xargs", "find lists outside", List.of("xargs", "find", "{O}"), "list"));
    p.add(new Payload("xargs", "tar reads the secret", List.of("xargs", "tar", "-cf", "-", "{S}"), "read"));
    p.add(new Payload("xargs", "git diff reads the secret", List.of("xargs", "git", "diff", "--no-index", "/dev/null", "{S}"),
      "read"));
    p.add(new Payload("xargs", "bash by path", List.of("xargs", "/bin/bash", "-c", ECHO), "exec"));
    return p;
  }

  static List<String> expand(List<String> argv) {
    return argv.stream().map(a -> a.replace("{S}", secret.toString()).replace("{O}", outside.toString())
      .replace("{I}", scope.toString())).toList();
  }

  /** Whether the payload did what it wanted (read the secret, changed the outside tree, ran the shell). */
  static boolean succeeded(Payload p, JsonObject result, Map<String, String> before) throws Exception {
    String out = result.getString("stdout", "") + result.getString("stderr", "");
    boolean changed = !snapshot(outside).equals(before);
    return switch (p.kind()) {
      case "read", "read-prog" -> out.contains(SECRET);
      case "read-etc" -> out.contains("root:");
      case "hash" -> out.contains(gitHash(SECRET + "\n"));
      case "list" -> out.contains("secret.txt");
      case "exec", "exec-any" -> out.contains(EXECUTED) || changed;
      case "exec-path" -> Integer.valueOf(0).equals(result.getInteger("exitCode"));
      default -> changed; // write, write-extract, delete, append
    };
  }

  static Map<String, String> snapshot(Path root) throws Exception {
    Map<String, String> m = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.toList()) {
        m.put(root.relativize(p).toString(), Files.isRegularFile(p) ? HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p))) : "dir");
      }
    }
    return m;
  }

  static String gitHash(String content) throws Exception {
    MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
    sha1.update(("blob " + content.length() + "\0").getBytes());
    return HexFormat.of().formatHex(sha1.digest(content.getBytes()));
  }

  static void prepareArchive() throws Exception {
    Path archive = scope.resolve("archive.tar");
    if (!Files.exists(archive)) {
      Process p = new ProcessBuilder("tar", "-C", scope.toString(), "-cf", archive.toString(), "inside.txt").start();
      assertEquals(0, p.waitFor());
    }
  }

  static boolean landlock() {
    return Landlock.abi() > 0;
  }

  @Test
  void everyPayloadFailsInsideTheConfinedChildAndTheOutsideTreeIsUntouched() throws Exception {
    assumeTrue(landlock(), "this kernel offers no Landlock: confinement is reported as none (tested below)");
    prepareArchive();
    Confinement confinement = Confinement.of(sudo);
    assertTrue(confinement.report().startsWith("landlock-strict"), confinement.report());
    ProcessRunner confined = new ProcessRunner(64 * 1024, confinement.spawner(() -> ALLOWLIST));
    Map<String, String> before = snapshot(outside);
    List<String> escaped = new ArrayList<>();
    List<Payload> all = payloads();
    for (Payload p : all) {
      Map<String, String> now = snapshot(outside);
      JsonObject r = confined.run(expand(p.argv()), scope, 10_000);
      if (succeeded(p, r, now)) {
        escaped.add(p + " → " + r.encode());
      }
    }
    assertTrue(all.size() >= 60, all.size() + " payloads");
    assertTrue(escaped.isEmpty(), escaped.size() + " of " + all.size() + " payloads escaped:\n" + String.join("\n", escaped));
    assertEquals(before, snapshot(outside), "the tree outside the scope is byte-identical");
    // allowlisted programs still do their work inside the scope
    assertEquals("inside\n", confined.run(expand(List.of("cat", "{I}/inside.txt")), scope, 10_000).getString("stdout"));
    assertTrue(confined.run(expand(List.of("tar", "-cf", "{I}/ok.tar", "{I}/inside.txt")), scope, 10_000)
      .getInteger("exitCode") == 0);
    assertTrue(confined.run(expand(List.of("find", "{I}", "-name", "inside.txt")), scope, 10_000).getString("stdout")
      .contains("inside.txt"));
  }

  /** Without the kernel layer the same payloads get through: the suite above can fail. */
  @Test
  void theSamePayloadsSucceedUnconfined() throws Exception {
    prepareArchive();
    ProcessRunner unconfined = new ProcessRunner(64 * 1024);
    int succeeded = 0;
    List<Payload> all = payloads();
    for (Payload p : all) {
      Map<String, String> before = snapshot(outside);
      JsonObject r = unconfined.run(expand(p.argv()), scope, 10_000);
      if (succeeded(p, r, before)) {
        succeeded++;
      }
      restoreOutside();
    }
    System.out.println("unconfined: " + succeeded + " of " + all.size() + " payloads worked");
    assertTrue(succeeded >= 45, "only " + succeeded + " of " + all.size() + " payloads worked unconfined");
  }

  static void restoreOutside() throws Exception {
    try (Stream<Path> walk = Files.walk(outside)) {
      walk.sorted(java.util.Comparator.reverseOrder()).filter(p -> !p.equals(outside)).forEach(p -> p.toFile().delete());
    }
    Files.writeString(secret, SECRET + "\n");
  }

  @Test
  void aTimeoutStopsTheConfinedProcess() throws Exception {
    assumeTrue(landlock(), "no Landlock on this kernel");
    ProcessRunner confined = new ProcessRunner(4096, Confinement.of(sudo).spawner(() -> Set.of("sleep")));
    long t0 = System.nanoTime();
    JsonObject r = confined.run(List.of("sleep", "30"), scope, 1000);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(r.getBoolean("timedOut"), r.encode());
    assertTrue(ms < 6000, "stopped after " + ms + " ms: " + r.encode());
  }

  @Test
  void runScriptIsConfinedTooButItsBuiltinsAndAllowlistedProgramsWork() throws Exception {
    assumeTrue(landlock(), "no Landlock on this kernel");
    Map<String, ToolHandler> tools = NodeTools.handlers(sudo, RuntimeConfig.none(sudo), null, "test");
    ToolHandler script = tools.get("run_script");
    JsonObject read = TestNode.run(script, "run_script", new JsonObject().put("interpreter", "bash")
      .put("script", "cat " + secret + "; read l < " + secret + "; echo \"$l\""), sudo);
    assertFalse(read.encode().contains(SECRET), read.encode());
    JsonObject write = TestNode.run(script, "run_script", new JsonObject().put("interpreter", "bash")
      .put("script", "echo x > " + outside + "/script-wrote; touch " + outside + "/t"), sudo);
    assertFalse(Files.exists(outside.resolve("script-wrote")), write.encode());
    JsonObject exec = TestNode.run(script, "run_script", new JsonObject().put("interpreter", "bash")
      .put("script", "/bin/sh -c '" + ECHO + "'; python3 -c 'print(1)'"), sudo);
    assertFalse(exec.getString("stdout").contains(EXECUTED), exec.encode());
    JsonObject fine = TestNode.run(script, "run_script", new JsonObject().put("interpreter", "bash")
      .put("script", "for i in 1 2; do echo \"n$i\"; done; ls " + scope + "; cat " + scope + "/inside.txt"), sudo);
    assertEquals(0, fine.getInteger("exitCode"), fine.encode());
    assertTrue(fine.getString("stdout").contains("n2") && fine.getString("stdout").contains("inside"), fine.encode());
  }

  @Test
  void aNodeWithoutConfinementSaysSoAndRefusesCommandToolsWhenRequired() throws Exception {
    NodeSettings forced = node("sudo", new JsonObject().put("confinement", "none"));
    Confinement none = Confinement.of(forced);
    assertEquals("none (conf)", none.report());
    Map<String, ToolHandler> tools = NodeTools.handlers(forced, RuntimeConfig.none(forced), null, "test");
    assertEquals("none (conf)", TestNode.run(tools.get("get_agent_config"), "get_agent_config", new JsonObject(), forced)
      .getString("confinement"), "the node says so (get_agent_config)");
    FleetException refused = assertThrows(FleetException.class, () -> TestNode.run(tools.get("run_command"), "run_command",
      new JsonObject().put("command", "echo hi"), forced));
    assertEquals(503, refused.code().code);
    assertTrue(refused.getMessage().contains("cannot confine processes"), refused.getMessage());
    assertThrows(FleetException.class, () -> TestNode.run(tools.get("run_script"), "run_script",
      new JsonObject().put("interpreter", "bash").put("script", "echo hi"), forced));

    // opting out of the requirement runs them (unconfined, and says so)
    NodeSettings optedOut = node("sudo", new JsonObject().put("confinement", new JsonObject().put("mode", "none")
      .put("required", false)));
    Map<String, ToolHandler> open = NodeTools.handlers(optedOut, RuntimeConfig.none(optedOut), null, "test");
    assertEquals("hi\n", TestNode.run(open.get("run_command"), "run_command", new JsonObject().put("command", "echo hi"),
      optedOut).getString("stdout"));

    // a kernel without Landlock (the fault switch, flipped in this JVM for the test): reported as such
    try (FaultSwitches.Restore r = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.NO_LANDLOCK))) {
      assertEquals("none (kernel without Landlock)", Confinement.of(sudo).report());
    }
  }

  /**
   * The system views stop short of private and denied folders: an installed node keeps its data in
   * /var/lib/fleetbus/node, and a listing right on /var or /var/lib would list its trust/ and jobs/ (Landlock's rights
   * hold for everything beneath). The views carved out of the system folders themselves (/etc/os-release) stay.
   */
  @Test
  void theSystemViewsNeitherHoldNorReachAPrivateOrDeniedFolder() {
    Map<Path, Long> all = new TreeMap<>();
    SystemReads.addTo(all, true, List.of(Path.of("/etc"), Path.of("/proc")));
    assertTrue(all.containsKey(Path.of("/var/lib")) && all.containsKey(Path.of("/var/log")), all.keySet().toString());
    Map<Path, Long> rules = new TreeMap<>();
    SystemReads.addTo(rules, true, List.of(Path.of("/etc"), Path.of("/proc"), Path.of("/var/lib/fleetbus/node"),
      Path.of("/var/log/private-app")));
    for (String gone : List.of("/var", "/var/lib", "/var/log")) {
      assertFalse(rules.containsKey(Path.of(gone)), gone + " would list or read a private or denied folder beneath it");
    }
    for (String kept : List.of("/etc/os-release", "/proc", "/var/lib/dpkg", "/run", "/usr/share")) {
      assertTrue(rules.containsKey(Path.of(kept)), kept + " dropped");
    }
  }

  @Test
  void theRulesetListsNoSystemFolderAndNoExecutableButTheAllowedOnes() {
    assumeTrue(landlock(), "no Landlock on this kernel");
    Confinement c = Confinement.of(node("sudo", new JsonObject().put("paths", new JsonObject().put("allow",
      new JsonArray().add("/")))));
    Map<Path, Long> rules = c.rules(Set.of(Path.of("/usr/bin/cat")));
    for (String never : List.of("/etc", "/root", "/boot")) {
      assertFalse(rules.containsKey(Path.of(never)), never + " is granted");
    }
    // the system views (SystemReads) are read-only: /proc and /sys parts readable, /dev listable, none writable
    long writes = Landlock.WRITE_FILE | Landlock.MAKE_REG | Landlock.REMOVE_FILE | Landlock.TRUNCATE | Landlock.EXECUTE;
    for (String view : List.of("/proc", "/sys/devices", "/dev")) {
      assertEquals(0, rules.get(Path.of(view)) & writes, view + " is writable or executable");
    }
    // /proc listable whatever the views: the JDK's child lists /proc/self/fd (LandlockRules.SPAWN_LISTS)
    assertEquals(Landlock.READ_DIR, rules.get(Path.of("/proc")) & Landlock.READ_DIR);
    Predicate<Map.Entry<Path, Long>> executes = e -> (e.getValue() & Landlock.EXECUTE) != 0;
    List<Path> executable = rules.entrySet().stream().filter(executes).map(Map.Entry::getKey).toList();
    assertTrue(executable.contains(Path.of("/usr/bin/cat")), executable.toString());
    assertFalse(executable.stream().anyMatch(p -> p.toString().contains("bin/sh") || p.toString().contains("dash")
      || p.toString().equals("/usr/bin") || p.toString().equals("/")), executable.toString());
  }

  /** A config_update that changes the allowlist makes new launchers and retires the old ones' threads. */
  @Test
  void aChangedAllowlistRetiresTheOldLaunchers() throws Exception {
    assumeTrue(landlock(), "no Landlock on this kernel");
    Confinement c = Confinement.of(sudo);
    java.util.concurrent.atomic.AtomicReference<Set<String>> allow = new java.util.concurrent.atomic.AtomicReference<>(
      Set.of("echo"));
    ProcessRunner runner = new ProcessRunner(4096, c.spawner(allow::get));
    assertEquals("a\n", runner.run(List.of("echo", "a"), scope, 5000).getString("stdout"));
    // a host helper (cat here) starts from a launcher of its own: two serve the old allowlist
    assertEquals("inside\n", runner.run(List.of("cat", scope.resolve("inside.txt").toString()), scope, 5000)
      .getString("stdout"));
    assertEquals(2, c.launcherCount());
    allow.set(Set.of("echo", "ls"));
    assertEquals(0, runner.run(List.of("ls", scope.toString()), scope, 5000).getInteger("exitCode"));
    assertEquals(1, c.launcherCount(), "the old allowlist's launchers are retired, one serves the new");
  }
}
