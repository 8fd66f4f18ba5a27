package io.fleetbus.node.confine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetbus.node.grant.NodeGrant;
import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.ToolSettings;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.files.PrivateMarker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file side of the node's grant, attacked from inside: bash scripts started from the confined launcher (as
 * run_script starts them; no argument rules in front) try to read, list or write what the grant keeps out — through
 * symbolic and hard links at every level of the scope (its root, folders holding excluded ones, plain folders; made
 * before the ruleset and by the attacker after it), links to ancestors, /proc paths, the node's own data, the hub's
 * data beside it, and plain writes outside. Every case is contained and the trees outside the scope are
 * byte-identical afterwards; each class is shown succeeding with its fix switched off (the walk that followed links,
 * the private-folder guard off, or no confinement where the kernel alone holds). Real kernel, real processes; skipped
 * where the kernel has no Landlock.
 */
@Timeout(600)
class FileGrantAttackTest {
  static final Set<String> ALLOWLIST = Set.of("bash", "cat", "ls", "ln", "cp", "mv", "rm", "touch", "mkdir", "find",
    "grep", "tar", "head");
  /** Any of these in a case's stdout means it read something it must not. */
  static final List<String> LEAKS = List.of("SECRET-", "NAME-");

  @TempDir
  static Path dir;
  static Path outside;
  static Path scope;
  static Path work;
  static Path fleet;
  static Path node;
  static Path hub;
  static Path denied;
  static Path privateConf;
  static NodeSettings sudo;
  static NodeSettings root;

  record Case(String klass, String name, String script) {
    @Override
    public String toString() {
      return klass + ": " + name;
    }
  }

  @BeforeAll
  static void fixture() throws Exception {
    outside = dir.resolve("outside");
    scope = dir.resolve("scope");
    work = scope.resolve("work");
    fleet = scope.resolve("fleet");
    node = fleet.resolve("node");
    hub = fleet.resolve("hub");
    denied = scope.resolve("denied");
    privateConf = scope.resolve("private-conf");
    write(outside.resolve("secret.txt"), "SECRET-outside");
    write(outside.resolve("victim.txt"), "victim");
    write(scope.resolve("inside.txt"), "inside");
    write(work.resolve("mine.txt"), "mine");
    write(fleet.resolve("shared.txt"), "shared");
    write(denied.resolve("NAME-denied.txt"), "SECRET-denied");
    write(privateConf.resolve("NAME-conf.txt"), "SECRET-conf");
    write(node.resolve("trust/NAME-credential.json"), "SECRET-credential");
    write(node.resolve("trust/calls.jsonl"), "SECRET-journal");
    write(node.resolve("jobs/j1/output.log"), "SECRET-job-output");
    write(node.resolve("processes/logs/web.log"), "SECRET-process-log");
    write(hub.resolve("keys/NAME-jwt.pem"), "SECRET-hub-key");
    write(hub.resolve("dev-token"), "SECRET-dev-token");
    PrivateMarker.mark(node, "node data folder");
    PrivateMarker.mark(hub, "hub data folder");
    PrivateMarker.mark(hub.resolve("keys"), "hub key folder");
    // links made before any ruleset, at each level: the scope root and fleet/ hold excluded folders, work/ does not
    for (Path level : List.of(scope, fleet, work)) {
      Files.createSymbolicLink(level.resolve("b-out-file"), outside.resolve("secret.txt"));
      Files.createSymbolicLink(level.resolve("b-out-dir"), outside);
      Files.createSymbolicLink(level.resolve("b-cred"), node.resolve("trust"));
      Files.createSymbolicLink(level.resolve("b-hub"), hub.resolve("keys"));
      Files.createSymbolicLink(level.resolve("b-denied"), denied);
    }
    JsonObject paths = new JsonObject().put("allow", new JsonArray().add(scope.toString()))
      .put("deny", new JsonArray().add(denied.toString())).put("private", new JsonArray().add(privateConf.toString()));
    sudo = node("sudo", paths, node);
    // /proc reachable: a root node whose scope holds /proc too, strict (only the allowlist executes)
    root = node("root", paths.copy().put("allow", new JsonArray().add(scope.toString()).add("/proc")), node);
  }

  static NodeSettings node(String tier, JsonObject paths, Path data) {
    return node(tier, paths, data, dir.resolve("sandbox"), ALLOWLIST);
  }

  static NodeSettings node(String tier, JsonObject paths, Path data, Path sandbox, Set<String> allowlist) {
    JsonObject conf = new JsonObject().put("paths", paths.copy().put("sandboxDir", sandbox.toString()))
      .put("confinement", new JsonObject().put("mode", "strict"));
    return new NodeSettings("attacked", "i1", tier, new JsonObject(), data, 1000, List.copyOf(allowlist), 64 * 1024, 1000,
      ToolSettings.fromConf(conf, data));
  }

  static void write(Path file, String content) throws Exception {
    Files.createDirectories(file.getParent());
    Files.writeString(file, content + "\n");
  }

  static List<Case> cases() {
    List<Case> c = new ArrayList<>();
    String cred = node + "/trust/NAME-credential.json";
    String key = hub + "/keys/NAME-jwt.pem";
    for (Path level : List.of(scope, fleet, work)) {
      String at = scope.relativize(level).toString();
      String l = level.toString();
      String where = at.isEmpty() ? "scope root" : at + "/";
      c.add(new Case("links-before", "file link at " + where, "cat " + l + "/b-out-file"));
      c.add(new Case("links-before", "folder link at " + where + " read", "cat " + l + "/b-out-dir/secret.txt"));
      c.add(new Case("links-before", "folder link at " + where + " write", "echo x > " + l + "/b-out-dir/pwned"));
      c.add(new Case("links-before", "folder link at " + where + " overwrite", "cp " + scope + "/inside.txt " + l
        + "/b-out-dir/victim.txt"));
      c.add(new Case("links-before", "link to node trust at " + where, "cat " + l + "/b-cred/NAME-credential.json"));
      c.add(new Case("links-before", "link to hub keys at " + where, "cat " + l + "/b-hub/NAME-jwt.pem"));
      c.add(new Case("links-before", "link to denied at " + where, "ls " + l + "/b-denied"));
      c.add(new Case("links-after", "file link at " + where, "ln -s " + outside + "/secret.txt " + l + "/a1; cat " + l + "/a1"));
      c.add(new Case("links-after", "folder link at " + where, "ln -s " + outside + " " + l + "/a2; echo x > " + l
        + "/a2/pwned; cat " + l + "/a2/secret.txt"));
      c.add(new Case("links-after", "link to node data at " + where, "ln -s " + node + " " + l + "/a3; cat " + l
        + "/a3/trust/NAME-credential.json"));
      c.add(new Case("links-after", "link to an ancestor at " + where, "ln -s " + dir + " " + l + "/a4; cat " + l
        + "/a4/outside/secret.txt; ls " + l + "/a4/scope/denied"));
      c.add(new Case("links-after", "hard link to an outside file at " + where, "ln " + outside + "/victim.txt " + l
        + "/h1; echo x >> " + l + "/h1"));
      c.add(new Case("links-after", "hard link to the credential at " + where, "ln " + cred + " " + l + "/h2; cat " + l
        + "/h2"));
      c.add(new Case("links-after", "hard link to the hub key at " + where, "ln " + key + " " + l + "/h3; cat " + l + "/h3"));
    }
    c.add(new Case("listing", "ls of a denied folder", "ls -a " + denied));
    c.add(new Case("listing", "ls of the node's trust folder", "ls -a " + node + "/trust"));
    c.add(new Case("listing", "ls of the hub's keys", "ls -a " + hub + "/keys"));
    c.add(new Case("listing", "ls of a paths.private folder", "ls -a " + privateConf));
    c.add(new Case("listing", "find over the scope", "find " + scope));
    c.add(new Case("listing", "find over the node's data", "find " + node));
    c.add(new Case("listing", "ls -R of the scope", "ls -aR " + scope));
    c.add(new Case("listing", "glob into the private folders", "echo " + fleet + "/*/* " + fleet + "/*/*/*"));
    c.add(new Case("own-data", "read the credential", "cat " + cred));
    c.add(new Case("own-data", "read the call journal", "cat " + node + "/trust/calls.jsonl"));
    c.add(new Case("own-data", "read a job's output", "cat " + node + "/jobs/j1/output.log"));
    c.add(new Case("own-data", "read a process log", "cat " + node + "/processes/logs/web.log"));
    c.add(new Case("own-data", "append to the journal", "echo x >> " + node + "/trust/calls.jsonl"));
    c.add(new Case("own-data", "remove the credential", "rm -f " + cred));
    c.add(new Case("own-data", "plant a job", "mkdir -p " + node + "/jobs/evil && echo x > " + node + "/jobs/evil/script"));
    c.add(new Case("own-data", "move the data folder into reach", "mv " + node + " " + work + "/stolen; cat " + work
      + "/stolen/trust/NAME-credential.json"));
    c.add(new Case("own-data", "grep -r the scope", "grep -r SECRET " + scope));
    c.add(new Case("own-data", "tar the fleet folder", "tar -cf - " + fleet + " | grep -a -o 'SECRET-[a-z-]*'"));
    c.add(new Case("hub-data", "read the signing key", "cat " + key));
    c.add(new Case("hub-data", "read the dev token", "cat " + hub + "/dev-token"));
    c.add(new Case("hub-data", "copy the keys into reach", "cp -r " + hub + "/keys " + work + "/k; cat " + work + "/k/*"));
    c.add(new Case("hub-data", "glob the keys", "cat " + fleet + "/*/keys/*"));
    c.add(new Case("hub-data", "find -exec cat", "find " + hub + " -type f -exec cat {} +"));
    c.add(new Case("hub-data", "replace the key", "echo x > " + key));
    c.add(new Case("writes", "write a new file outside", "echo x > " + outside + "/pwned"));
    c.add(new Case("writes", "overwrite a file outside", "echo x > " + outside + "/victim.txt"));
    c.add(new Case("writes", "touch outside", "touch " + outside + "/victim.txt"));
    c.add(new Case("writes", "remove outside", "rm -f " + outside + "/victim.txt"));
    c.add(new Case("writes", "mkdir outside", "mkdir " + outside + "/d"));
    c.add(new Case("writes", "symlink outside", "ln -s /x " + outside + "/l"));
    c.add(new Case("writes", "move a file out", "cp " + scope + "/inside.txt " + work + "/m.txt; mv " + work + "/m.txt "
      + outside + "/m.txt"));
    c.add(new Case("writes", "write into a denied folder", "echo x > " + denied + "/new"));
    c.add(new Case("writes", "remove a denied folder's file", "rm -f " + denied + "/NAME-denied.txt"));
    c.add(new Case("writes", "rename a folder holding excluded ones", "mv " + fleet + " " + work + "/f; ls -R " + work
      + "/f"));
    return c;
  }

  /** Cases that need /proc in the scope (root node); {P} is the node process's pid. */
  static List<Case> procCases() {
    long pid = ProcessHandle.current().pid();
    String cred = node + "/trust/NAME-credential.json";
    return List.of(
      new Case("proc", "/proc/self/root to the credential", "cat /proc/self/root" + cred),
      new Case("proc", "/proc/self/cwd to the credential", "cd " + scope + " && cat /proc/self/cwd/fleet/node/trust/NAME-credential.json"),
      new Case("proc", "/proc/self/root to the hub key", "cat /proc/self/root" + hub + "/keys/NAME-jwt.pem"),
      new Case("proc", "/proc/self/root listing of trust", "ls /proc/self/root" + node + "/trust"),
      new Case("proc", "/proc/<node>/root to the credential", "cat /proc/" + pid + "/root" + cred),
      new Case("proc", "/proc/<node>/fd of the open journal", "for f in /proc/" + pid + "/fd/*; do cat $f 2>/dev/null; done"),
      new Case("proc", "/proc/<node>/cwd", "ls /proc/" + pid + "/cwd/"),
      new Case("proc", "/proc/self/root to outside", "cat /proc/self/root" + outside + "/secret.txt"),
      new Case("proc", "/proc/<node>/root to outside", "cat /proc/" + pid + "/root" + outside + "/secret.txt"),
      new Case("proc", "/proc/self/root write outside", "echo x > /proc/self/root" + outside + "/pwned"));
  }

  /** Everything that must not change: outside, the denied and private folders (contents and links, hashed). */
  static Map<String, String> protectedTrees() throws Exception {
    Map<String, String> m = new TreeMap<>();
    for (Path top : List.of(outside, denied, privateConf, node, hub)) {
      if (!Files.exists(top)) {
        m.put(top.toString(), "GONE");
        continue;
      }
      try (Stream<Path> walk = Files.walk(top)) {
        for (Path p : walk.toList()) {
          String v = Files.isSymbolicLink(p) ? "link:" + Files.readSymbolicLink(p)
            : Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? "dir"
            : HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
          m.put(p.toString(), v);
        }
      }
    }
    return m;
  }

  /** Runs each case; returns those that read, listed or changed what they must not (restoring after each). */
  static List<String> escapes(ProcessRunner runner, List<Case> all) throws Exception {
    List<String> escaped = new ArrayList<>();
    Map<String, String> clean = protectedTrees();
    for (Case k : all) {
      JsonObject r = runner.run(List.of("bash", "-c", k.script()), scope, 10_000);
      String out = r.getString("stdout", "");
      boolean leaked = LEAKS.stream().anyMatch(out::contains);
      boolean changed = !clean.equals(protectedTrees());
      if (leaked || changed) {
        escaped.add(k + (leaked ? " [read/listed]" : "") + (changed ? " [changed the protected trees]" : "") + " → "
          + out.lines().limit(3).toList());
        restore();
      }
      cleanAttackerLeftovers();
    }
    return escaped;
  }

  /** Puts back what an escaped case changed (only ever needed in the fix-off runs). */
  static void restore() throws Exception {
    for (Path p : List.of(outside.resolve("pwned"), outside.resolve("d"), outside.resolve("l"), outside.resolve("m.txt"),
      denied.resolve("new"))) {
      if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
        Files.delete(p);
      }
      Files.deleteIfExists(p);
    }
    if (Files.exists(work.resolve("stolen"))) {
      Files.move(work.resolve("stolen"), node);
    }
    if (Files.exists(work.resolve("f"))) {
      Files.move(work.resolve("f"), fleet);
    }
    write(outside.resolve("victim.txt"), "victim");
    write(denied.resolve("NAME-denied.txt"), "SECRET-denied");
    write(node.resolve("trust/NAME-credential.json"), "SECRET-credential");
    write(node.resolve("trust/calls.jsonl"), "SECRET-journal");
    write(hub.resolve("keys/NAME-jwt.pem"), "SECRET-hub-key");
    try (Stream<Path> jobs = Files.list(node.resolve("jobs"))) {
      for (Path j : jobs.filter(p -> !p.getFileName().toString().equals("j1")).toList()) {
        deleteTree(j);
      }
    }
  }

  /** What the attacker made inside the scope (links, copies), so that the next case starts alike. */
  static void cleanAttackerLeftovers() throws Exception {
    for (Path level : List.of(scope, fleet, work)) {
      for (String n : List.of("a1", "a2", "a3", "a4", "h1", "h2", "h3", "k")) {
        Path p = level.resolve(n);
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          deleteTree(p);
        }
        Files.deleteIfExists(p);
      }
    }
  }

  static void deleteTree(Path p) throws Exception {
    try (Stream<Path> walk = Files.walk(p)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
    }
  }

  static ProcessRunner confined(Confinement c) {
    return new ProcessRunner(64 * 1024, c.spawner(() -> ALLOWLIST));
  }

  @Test
  void everyFileAttackIsContainedAndTheProtectedTreesAreByteIdentical() throws Exception {
    assumeTrue(Landlock.abi() > 0, "this kernel offers no Landlock: the node reports confinement none");
    Map<String, String> before = protectedTrees();
    List<Case> all = cases();
    // both constructions: excluded folders hidden by a mount namespace (a root node: MountHiding), and walked around
    List<String> escaped = new ArrayList<>();
    for (boolean hide : MountHiding.available() ? List.of(true, false) : List.of(false)) {
      escaped.addAll(escapes(confined(Confinement.of(sudo).hiding(hide)), all).stream()
        .map(e -> (hide ? "[hidden] " : "") + e).toList());
      try (FileChannel open = FileChannel.open(node.resolve("trust/calls.jsonl"))) {
        escaped.addAll(escapes(confined(Confinement.of(root).hiding(hide)), procCases()));
      }
    }
    int total = all.size() + procCases().size();
    System.out.println("file grant corpus: " + total + " cases, " + escaped.size() + " escaped: " + escaped);
    assertTrue(total >= 60, total + " cases");
    // the job output and process logs too: no confined process reads the node's data (the process side of the grant)
    assertTrue(escaped.isEmpty(), escaped.size() + " of " + total + " escaped:\n" + String.join("\n", escaped));
    assertEquals(before, protectedTrees(), "the protected trees are byte-identical");
    // and the scope works: read and write where granted, beside the private folders too
    ProcessRunner r = confined(Confinement.of(sudo));
    assertEquals("inside\n", r.run(List.of("cat", scope + "/inside.txt"), scope, 5000).getString("stdout"));
    assertEquals("shared\n", r.run(List.of("cat", fleet + "/shared.txt"), scope, 5000).getString("stdout"));
    assertEquals(0, r.run(List.of("bash", "-c", "echo more >> " + fleet + "/shared.txt && touch " + work + "/new.txt"
      + " && ls " + work), scope, 5000).getInteger("exitCode"));
  }

  /** Each class with its fix switched off: the walk that follows links, the private guard off, or no confinement. */
  @Test
  void eachClassGetsThroughWithItsFixSwitchedOff() throws Exception {
    assumeTrue(Landlock.abi() > 0, "no Landlock on this kernel");
    Map<String, Long> byClass = new LinkedHashMap<>();
    List<Case> linksBefore = cases().stream().filter(k -> k.klass().equals("links-before")).toList();
    count(byClass, escapes(confined(Confinement.of(sudo, NodeGrant.of(sudo), true)), linksBefore));
    List<Case> listing = cases().stream().filter(k -> k.klass().equals("listing")).toList();
    count(byClass, escapes(confined(Confinement.of(sudo, NodeGrant.of(sudo), true)), listing));
    List<Case> privateOnes = cases().stream().filter(k -> Set.of("own-data", "hub-data").contains(k.klass())).toList();
    count(byClass, escapes(confined(Confinement.of(sudo, NodeGrant.of(sudo, false), false)), privateOnes));
    count(byClass, escapes(confined(Confinement.of(root, NodeGrant.of(root, false), false)), procCases()));
    ProcessRunner unconfined = new ProcessRunner(64 * 1024);
    List<Case> kernelAlone = cases().stream().filter(k -> Set.of("links-after", "writes").contains(k.klass())).toList();
    count(byClass, escapes(unconfined, kernelAlone));
    System.out.println("fix switched off, escapes by class: " + byClass);
    for (String klass : List.of("links-before", "links-after", "listing", "own-data", "hub-data", "proc", "writes")) {
      assertTrue(byClass.getOrDefault(klass, 0L) > 0, klass + " never got through with its fix off: " + byClass);
    }
  }

  static void count(Map<String, Long> byClass, List<String> escaped) {
    for (String e : escaped) {
      byClass.merge(e.substring(0, e.indexOf(':')), 1L, Long::sum);
    }
  }

  /** A link to an ancestor where the scope holds an excluded folder: the walk neither loops nor stops commands. */
  @Test
  void aLinkToAnAncestorNeitherLoopsTheBuildNorStopsCommands() throws Exception {
    assumeTrue(Landlock.abi() > 0, "no Landlock on this kernel");
    Path loop = fleet.resolve("loop");
    Files.createSymbolicLink(loop, dir);
    try {
      Confinement c = Confinement.of(sudo);
      assertEquals("hi\n", confined(c).run(List.of("bash", "-c", "echo hi"), scope, 5000).getString("stdout"));
      assertThrows(StackOverflowError.class, () -> Confinement.of(sudo, NodeGrant.of(sudo), true).rules(Set.of()),
        "the walk that followed links recursed until the stack ran out");
    } finally {
      Files.delete(loop);
    }
  }

  /** An entry added where the scope holds excluded folders is granted at the next start (the launcher is rebuilt). */
  @Test
  void aChangedHolderRebuildsTheLauncher() throws Exception {
    assumeTrue(Landlock.abi() > 0, "no Landlock on this kernel");
    Confinement c = Confinement.of(sudo);
    ProcessRunner r = confined(c);
    assertEquals(0, r.run(List.of("cat", scope + "/inside.txt"), scope, 5000).getInteger("exitCode"));
    Path added = Files.createDirectories(fleet.resolve("added"));
    try {
      write(added.resolve("new.txt"), "new");
      assertEquals("new\n", r.run(List.of("cat", added + "/new.txt"), scope, 5000).getString("stdout"));
      // a start with no change checks the stamps only; changes in a row rebuild at most once a second
      long steady = medianMicros(20, () -> r.run(List.of("cat", scope + "/inside.txt"), scope, 5000));
      int[] n = {0};
      long churning = medianMicros(20, () -> {
        write(fleet.resolve("churn-" + n[0]++), "x");
        r.run(List.of("cat", scope + "/inside.txt"), scope, 5000);
      });
      System.out.println("confined start+wait of cat, p50: " + steady + " µs with no change (stamps checked), "
        + churning + " µs while a holder changes before every start (rebuilt at most once a second)");
    } finally {
      deleteTree(added);
      for (int i = 0; i < 20; i++) {
        Files.deleteIfExists(fleet.resolve("churn-" + i));
      }
    }
  }

  interface Step {
    void run() throws Exception;
  }

  static long medianMicros(int times, Step step) throws Exception {
    long[] t = new long[times];
    for (int i = 0; i < times; i++) {
      long t0 = System.nanoTime();
      step.run();
      t[i] = (System.nanoTime() - t0) / 1000;
    }
    java.util.Arrays.sort(t);
    return t[times / 2];
  }

  /**
   * What the construction costs, on this fixture and on the embedded default's scope ("/" on a sudo node, data in a
   * checkout): ruleset build (walk, handles, private-folder search), rule count, the per-start stamp check, and a
   * start from the confined launcher against an unconfined one.
   */
  @Test
  void costs() throws Exception {
    assumeTrue(Landlock.abi() > 0, "no Landlock on this kernel");
    Map<String, NodeSettings> configs = new LinkedHashMap<>();
    configs.put("fixture", sudo);
    Path inTarget = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "checkout");
    Path inTmp = Files.createDirectories(dir.resolve("checkout"));
    for (Path checkout : List.of(inTarget, inTmp)) {
      Path data = Files.createDirectories(checkout.resolve("data/node"));
      Files.createDirectories(checkout.resolve("data/hub"));
      PrivateMarker.mark(checkout.resolve("data/hub"), "hub data folder");
      PrivateMarker.mark(data, "node data folder");
      configs.put("allow / with data in " + (checkout == inTmp ? "/tmp (a busy holder)" : "a checkout under /work"),
        node("sudo", new JsonObject().put("allow", new JsonArray().add("/")), data));
    }
    for (Map.Entry<String, NodeSettings> e : configs.entrySet()) {
      LandlockRules rules = new LandlockRules(true, Landlock.abi(), NodeGrant.of(e.getValue()).allowed(),
        NodeGrant.of(e.getValue())::excludedNow, NodeGrant.of(e.getValue())::watchedNow, List.of(), false);
      int[] count = {0};
      long build = medianMicros(11, () -> {
        LandlockRules.Bound b = rules.bind(Set.of(Path.of("/usr/bin/cat")));
        count[0] = b.rules().size();
        b.handles().close();
      });
      long stale = medianMicros(101, rules::stale);
      ProcessRunner c = confined(Confinement.of(e.getValue()));
      ProcessRunner plain = new ProcessRunner(4096);
      c.run(List.of("cat", "/dev/null"), scope, 5000);
      // interleaved, so that the machine's load weighs on both alike
      long[] confinedSpawn = new long[41];
      long[] plainSpawn = new long[41];
      for (int i = 0; i < 41; i++) {
        confinedSpawn[i] = medianMicros(1, () -> c.run(List.of("cat", "/dev/null"), scope, 5000));
        plainSpawn[i] = medianMicros(1, () -> plain.run(List.of("cat", "/dev/null"), scope, 5000));
      }
      java.util.Arrays.sort(confinedSpawn);
      java.util.Arrays.sort(plainSpawn);
      System.out.println("cost [" + e.getKey() + "]: ruleset build p50 " + build + " µs, " + count[0] + " rules, stamp"
        + " check p50 " + stale + " µs, start+wait of cat p50 " + confinedSpawn[20] + " µs confined vs " + plainSpawn[20]
        + " µs unconfined");
    }
    deleteTree(inTarget);
  }

  /**
   * The embedded default's local node (sudo, paths.allow "/", data in a checkout outside /tmp): files are created
   * directly in /tmp and /tmp is listed (it holds no excluded folder), the checkout's other entries are read, while
   * its data folders are neither read nor listed. The folders that hold them (the checkout, data/): with the data
   * folders hidden (a root node, MountHiding) they are listed and added to like any other and the data folders show
   * empty; without, they can be neither listed nor added to — the price of Landlock's inherited rights.
   */
  @Test
  void theEmbeddedDefaultsLocalNodeWritesInTmpAndNeverSeesItsData() throws Exception {
    assumeTrue(Landlock.abi() > 0, "no Landlock on this kernel");
    Path checkout = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "checkout");
    try {
      Path data = Files.createDirectories(checkout.resolve("data/node"));
      write(checkout.resolve("data/hub/keys/NAME-jwt.pem"), "SECRET-hub-key");
      write(data.resolve("trust/calls.jsonl"), "SECRET-journal");
      write(checkout.resolve("docs/readme.md"), "docs");
      PrivateMarker.mark(checkout.resolve("data/hub"), "hub data folder");
      PrivateMarker.mark(data, "node data folder");
      NodeSettings local = node("sudo", new JsonObject().put("allow", new JsonArray().add("/")), data);
      for (boolean hide : MountHiding.available() ? List.of(true, false) : List.of(false)) {
        embeddedDefault(confined(Confinement.of(local).hiding(hide)), checkout, data, hide);
      }
    } finally {
      deleteTree(checkout);
    }
  }

  static void embeddedDefault(ProcessRunner r, Path checkout, Path data, boolean hidden) throws Exception {
    {
      Path made = Path.of("/tmp/fleetbus-grant-" + ProcessHandle.current().pid());
      JsonObject touch = r.run(List.of("bash", "-c", "touch " + made + " && ls /tmp | grep -c fleetbus-grant-"), scope, 5000);
      assertEquals(0, touch.getInteger("exitCode"), touch.encode());
      assertTrue(Files.exists(made), "created directly in /tmp");
      Files.delete(made);
      assertEquals("docs\n", r.run(List.of("cat", checkout + "/docs/readme.md"), scope, 5000).getString("stdout"));
      for (String attack : List.of("cat " + checkout + "/data/hub/keys/NAME-jwt.pem", "cat " + data
        + "/trust/calls.jsonl", "grep -r SECRET " + checkout, "touch " + data + "/x")) {
        JsonObject out = r.run(List.of("bash", "-c", attack), scope, 5000);
        assertFalse(LEAKS.stream().anyMatch(out.getString("stdout")::contains), attack + " → " + out.encode());
        assertTrue(out.getInteger("exitCode") != 0, attack + " → " + out.encode());
      }
      assertFalse(Files.exists(data.resolve("x")));
      // the holders: usable when the data folders are hidden, closed when they are not; never a name inside
      for (String use : List.of("ls -R " + checkout + "/data", "ls -a " + checkout, "touch " + checkout + "/data/x")) {
        JsonObject out = r.run(List.of("bash", "-c", use), scope, 5000);
        assertFalse(LEAKS.stream().anyMatch(out.getString("stdout")::contains), use + " → " + out.encode());
        assertFalse(out.getString("stdout").contains("keys") || out.getString("stdout").contains("trust"), out.encode());
        assertEquals(hidden, out.getInteger("exitCode") == 0, use + " (hidden: " + hidden + ") → " + out.encode());
      }
      assertEquals(hidden, Files.deleteIfExists(checkout.resolve("data/x")));
    }
  }

  /**
   * The race a path-named rule loses: a folder the walk saw is swapped for a link to outside between the walk and the
   * restriction. Rules bound to the walked inodes keep pointing at the folder (now moved away inside the scope); rules
   * named by path are opened following the new link and grant the outside.
   */
  @Test
  void aFolderSwappedForALinkAfterTheWalkRedirectsNoRule() throws Exception {
    assumeTrue(Landlock.abi() > 0, "no Landlock on this kernel");
    Path swap = Files.createDirectories(fleet.resolve("swap"));
    try {
      for (boolean legacy : List.of(false, true)) {
        List<Path> excluded = List.of(denied.toRealPath(), node.toRealPath(), hub.toRealPath());
        LandlockRules rules = new LandlockRules(true, Landlock.abi(), List.of(scope.toRealPath()), () -> excluded,
          List::of, List.of(), false);
        Set<Path> exe = Set.of(Path.of("/usr/bin/cat"));
        LandlockRules.Bound bound = legacy ? new LandlockRules.Bound(rules.rules(exe), new PathHandles(false), List.of())
          : rules.bind(exe);
        Files.move(swap, fleet.resolve("swapped-away"));
        Files.createSymbolicLink(swap, outside);
        ConfinedLauncher launcher = new ConfinedLauncher("swap", Landlock.abi(), bound.rules());
        try {
          JsonObject r = new ProcessRunner(4096, launcher).run(List.of("cat", swap + "/secret.txt"), scope, 5000);
          assertEquals(legacy, r.getString("stdout").contains("SECRET-outside"), (legacy ? "rules by path" : "bound rules")
            + ": " + r.encode());
        } finally {
          launcher.retire();
          bound.handles().close();
          Files.delete(swap);
          Files.move(fleet.resolve("swapped-away"), swap);
        }
      }
    } finally {
      deleteTree(swap);
    }
  }

  /**
   * A fleetbus folder that appears later where no search looks (here inside a plain folder of the scope): the file
   * tools refuse it by its marker at once, and the next start's ruleset leaves it out (the tools and the kernel share
   * one grant). Before any tool met it, a confined process still reads it — name such folders in paths.private.
   */
  @Test
  void aMarkedFolderTheFileToolsMeetIsLeftOutOfTheNextRuleset() throws Exception {
    assumeTrue(Landlock.abi() > 0, "no Landlock on this kernel");
    Map<String, io.fleetbus.node.tools.ToolHandler> tools = io.fleetbus.node.tools.NodeTools.handlers(sudo,
      io.fleetbus.node.settings.RuntimeConfig.none(sudo), null, "test");
    Path other = work.resolve("other-hub");
    write(other.resolve("NAME-key.pem"), "SECRET-other-hub");
    try {
      JsonObject script = new JsonObject().put("interpreter", "bash").put("script", "cat " + other + "/NAME-key.pem");
      JsonObject before = io.fleetbus.node.tools.TestNode.run(tools.get("run_script"), "run_script", script, sudo);
      assertTrue(before.getString("stdout").contains("SECRET-other-hub"), "unmarked, it is a folder like any other");
      PrivateMarker.mark(other, "hub data folder");
      FleetException refused = assertThrows(FleetException.class, () -> io.fleetbus.node.tools.TestNode.run(
        tools.get("read_file"), "read_file", new JsonObject().put("path", other + "/NAME-key.pem"), sudo));
      assertEquals(403, refused.code().code);
      JsonObject after = io.fleetbus.node.tools.TestNode.run(tools.get("run_script"), "run_script", script, sudo);
      assertFalse(after.getString("stdout").contains("SECRET-other-hub"), after.encode());
    } finally {
      deleteTree(other);
    }
  }

  /** A private file with a second name elsewhere: no ruleset is built (the kernel would grant that name). */
  @Test
  void aSecondNameOfAPrivateFileStopsCommandsUntilRemoved() throws Exception {
    assumeTrue(Landlock.abi() > 0, "no Landlock on this kernel");
    Path second = work.resolve("second-name");
    Files.createLink(second, node.resolve("trust/calls.jsonl"));
    try {
      Confinement c = Confinement.of(sudo);
      FleetException e = assertThrows(FleetException.class, () -> confined(c).run(List.of("cat", second.toString()),
        scope, 5000));
      assertTrue(e.getMessage().contains("second name"), e.getMessage());
      // with the guard off the second name is simply a file in the scope
      String out = confined(Confinement.of(sudo, NodeGrant.of(sudo, false), false))
        .run(List.of("cat", second.toString()), scope, 5000).getString("stdout");
      assertTrue(out.contains("SECRET-journal"), out);
    } finally {
      Files.delete(second);
    }
    assertFalse(Files.exists(second));
  }
}
