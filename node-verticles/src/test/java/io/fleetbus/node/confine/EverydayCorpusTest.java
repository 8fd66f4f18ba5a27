package io.fleetbus.node.confine;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.RuntimeConfig;
import io.fleetbus.node.tools.NodeTools;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.command.CommandLine;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default sudo node (conf/node.json as scripts/run.sh starts it: its allowlist, rules, network and limits) is
 * useful: the commands an operator runs first give the same output shape confined as unconfined — same exit code,
 * same header (digits masked), stdout and stderr empty or not alike — as the same argv started from a plain shell. Every command that differs is printed with
 * both answers (docs/grant-processes.md lists them and why). Real processes, the real kernel.
 */
@Timeout(600)
class EverydayCorpusTest {
  @TempDir
  static Path dir;

  static final List<String> COMMANDS = List.of(
    "ps aux", "ps -ef", "ps -eo pid,comm", "df -h", "df -i", "df -T", "free -m", "free -h", "uptime", "uptime -p",
    "id", "id -u", "whoami", "hostname", "date -u +%Y", "sleep 1", "uname -a", "nproc", "w", "who",
    "cat /etc/os-release", "cat /proc/meminfo", "cat /proc/loadavg", "cat /proc/version", "cat /proc/mounts",
    "findmnt", "lsblk", "lscpu", "vmstat", "cat /etc/hostname",
    "ip addr", "ip route", "ip link", "ss -tln", "ss -s", "ss -uan", "getent hosts localhost", "getent passwd root",
    "journalctl -n 5 --no-pager", "systemctl status --no-pager", "systemctl list-units --no-pager",
    "git status", "git log --oneline", "git diff", "git branch", "git show --stat HEAD", "git diff --stat HEAD~1",
    "tar -czf work.tgz notes", "tar -tzf work.tgz", "gzip -kf notes/a.txt", "du -sh notes", "du -a notes",
    "find notes -name a.txt", "find notes -type f", "grep -r hello notes", "grep -c hello notes/a.txt",
    "wc -l notes/a.txt", "sort notes/b.txt", "uniq notes/b.txt", "cut -d: -f1 notes/b.txt", "stat -c %s notes/a.txt",
    "sha256sum notes/a.txt", "md5sum notes/b.txt", "head -n 2 notes/b.txt", "tail -n 1 notes/b.txt", "diff notes/a.txt notes/b.txt",
    "file notes/a.txt", "ls -la /var/log", "tail -n 3 /var/log/dpkg.log", "wc -l /var/log/alternatives.log",
    "ls /proc/self", "ls /etc", "dmesg", "realpath notes", "pwd", "cat /proc/cpuinfo", "head -n 1 /proc/stat",
    "uname -r", "date +%s", "df -h /", "du -sh /var/log", "find /var/log -name dpkg.log", "ip -s link", "ss -tan",
    "journalctl --disk-usage", "ls /var/log/apt", "grep -c NAME /etc/os-release", "ls /", "ls ..", "ls -ld /tmp");

  /** The same command's answer confined and unconfined, with their shapes. */
  record Pair(String command, JsonObject confined, JsonObject unconfined) {
    boolean same() {
      return shape(confined).equals(shape(unconfined));
    }
  }

  /** Exit code, stdout/stderr empty or not, and the first stdout line with digits masked and spaces collapsed. */
  static String shape(JsonObject r) {
    if (r.containsKey("refused")) {
      return "refused " + r.getString("refused");
    }
    String out = r.getString("stdout", "");
    String first = out.lines().findFirst().orElse("").replaceAll("\\d+", "#").replaceAll("\\s+", " ").strip();
    String err = r.getString("stderr", "");
    return r.getInteger("exitCode") + "|" + out.isEmpty() + "|" + err.isEmpty() + "|" + first;
  }

  static NodeSettings defaultNode(JsonObject extra) throws Exception {
    JsonObject conf = new JsonObject(Files.readString(Path.of("../conf/node.json"))).mergeIn(extra, true);
    conf.put("dataDir", dir.resolve("data").toString());
    conf.getJsonObject("paths").put("sandboxDir", dir.resolve("sandbox").toString());
    return NodeSettings.fromConf(conf);
  }

  static JsonObject run(ToolHandler tool, NodeSettings node, String command, Path cwd) {
    try {
      return TestNode.run(tool, "run_command", new JsonObject().put("command", command).put("cwd", cwd.toString()), node);
    } catch (FleetException e) {
      return new JsonObject().put("refused", e.code().code + " " + e.getMessage());
    } catch (Exception e) {
      return new JsonObject().put("refused", e.toString());
    }
  }

  static Path workTree() throws Exception {
    Path work = Files.createDirectories(dir.resolve("work"));
    Files.createDirectories(work.resolve("notes"));
    Files.writeString(work.resolve("notes/a.txt"), "hello\nworld\n");
    Files.writeString(work.resolve("notes/b.txt"), "root:x:0\nroot:x:0\nuser:y:1\n");
    for (String line : List.of("git init -q", "git add .", "git -c user.name=a -c user.email=a@b commit -qm one",
      "git -c user.name=a -c user.email=a@b commit -q --allow-empty -m two")) {
      Process p = new ProcessBuilder(List.of("bash", "-c", line)).directory(work.toFile()).start();
      p.waitFor();
    }
    Files.writeString(work.resolve("notes/a.txt"), "hello\nthere\n");
    return work;
  }

  @Test
  void everydayCommandsGiveTheSameShapeConfinedAsUnconfined() throws Exception {
    assumeTrue(Landlock.abi() > 0, "this kernel offers no Landlock: nothing to compare");
    Path work = workTree();
    NodeSettings confinedNode = defaultNode(new JsonObject());
    ToolHandler confined = NodeTools.handlers(confinedNode, RuntimeConfig.none(confinedNode), null, "test").get("run_command");
    ProcessRunner shell = new ProcessRunner(50 * 1024); // a plain shell's view: the same argv, no node in between
    List<Pair> pairs = new ArrayList<>();
    for (String c : COMMANDS) {
      pairs.add(new Pair(c, run(confined, confinedNode, c, work), shell.run(CommandLine.split(c), work, 30_000)));
    }
    List<Pair> differ = pairs.stream().filter(p -> !p.same()).toList();
    System.out.printf("everyday corpus: %d commands, %d same shape (%.1f %%)%n", pairs.size(), pairs.size() - differ.size(),
      100.0 * (pairs.size() - differ.size()) / pairs.size());
    for (Pair p : differ) {
      System.out.println("differs: " + p.command() + "\n  confined:   " + cut(p.confined()) + "\n  unconfined: "
        + cut(p.unconfined()));
    }
    assertTrue(pairs.size() >= 60, pairs.size() + " commands");
    assertTrue((pairs.size() - differ.size()) * 100 >= pairs.size() * 95, differ.size() + " of " + pairs.size()
      + " differ: " + differ.stream().map(Pair::command).toList());
  }

  static String cut(JsonObject r) {
    String s = r.copy().put("stdout", r.getString("stdout", "").lines().limit(2).toList().toString()).encode();
    return s.length() > 400 ? s.substring(0, 400) + "…" : s;
  }
}
