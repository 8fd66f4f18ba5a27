package io.fleetbus.node.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetbus.node.confine.Confinement;
import io.fleetbus.node.confine.Landlock;
import io.fleetbus.node.confine.Spawner;
import io.fleetbus.node.processes.ProcessConfig;
import io.fleetbus.node.processes.ProcessPrograms;
import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.ToolSettings;
import io.fleetbus.node.tools.command.CommandRules;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs and managed processes follow the tiers: a confined job script with {@code sleep 1} runs on the default
 * allowlist; no confined job reads another job's output or writes the node's own folders; add_process starts only
 * what run_command could (an operator's {@code /usr/bin/bash -c} is refused). Real processes, the real kernel.
 */
@Timeout(120)
class GrantedJobsTest {
  static final Set<String> ALLOWLIST = Set.of("echo", "sleep", "cat", "id", "ls");

  @TempDir
  Path dir;

  NodeSettings sudo(Path scope) {
    JsonObject conf = new JsonObject().put("paths", new JsonObject().put("allow", new JsonArray().add(scope.toString())
      .add(dir.toString())).put("sandboxDir", dir.resolve("sandbox").toString()));
    Path data = dir.resolve("data");
    return new NodeSettings("jobs", "i1", "sudo", new JsonObject(), data, 1000, List.copyOf(ALLOWLIST), 64 * 1024, 1000,
      ToolSettings.fromConf(conf, data));
  }

  static JobRequest script(String text) {
    return new JobRequest(null, text, "bash", null, Map.of(), "t", 600, 0);
  }

  static String run(Process p) throws Exception {
    String out = new String(p.getInputStream().readAllBytes()) + new String(p.getErrorStream().readAllBytes());
    p.waitFor();
    return p.exitValue() + ":" + out;
  }

  @Test
  void aConfinedJobRunsItsScriptButReadsNoOtherJobsOutputAndWritesNoNodeFolder() throws Exception {
    assumeTrue(Landlock.abi() > 0, "no Landlock on this kernel");
    Path scope = Files.createDirectories(dir.resolve("scope"));
    NodeSettings node = sudo(scope);
    Path other = Files.createDirectories(node.dataDir().resolve("jobs/other"));
    Files.writeString(other.resolve("output.log"), "OTHER-JOB-SECRET\n");
    Path logs = Files.createDirectories(node.dataDir().resolve("processes/logs"));
    Path mine = Files.createDirectories(node.dataDir().resolve("jobs/mine"));
    Spawner jobs = Confinement.of(node).jobSpawner(() -> ALLOWLIST);
    assertEquals("0:slept\n", run(JobLauncher.start(script("sleep 1\necho slept"), mine, jobs)), "sleep 1 in a job");
    String read = run(JobLauncher.start(script("cat " + other.resolve("output.log") + "; read l < " + other
      .resolve("output.log") + "; echo \"$l\""), mine, jobs));
    assertFalse(read.contains("OTHER-JOB-SECRET"), read);
    String wrote = run(JobLauncher.start(script("echo x >> " + logs.resolve("a.log") + "; echo y > " + mine
      .resolve("forged")), mine, jobs));
    assertFalse(Files.exists(logs.resolve("a.log")), wrote);
    assertFalse(Files.exists(mine.resolve("forged")), wrote);
    // a script longer than one argument takes still runs as text
    String longScript = "x=0\n" + "x=$((x+1))\n".repeat(12_000) + "echo $x";
    assertTrue(longScript.length() > JobLauncher.CHUNK * 3, "" + longScript.length());
    assertEquals("0:12000\n", run(JobLauncher.start(script(longScript), mine, jobs)));
  }

  @Test
  void aRefusedExecSaysWhichProgramAndWhichConfKey() throws Exception {
    assumeTrue(Landlock.abi() > 0, "no Landlock on this kernel");
    NodeSettings node = sudo(Files.createDirectories(dir.resolve("scope")));
    Path mine = Files.createDirectories(node.dataDir().resolve("jobs/mine"));
    String out = run(JobLauncher.start(script("uptime"), mine, Confinement.of(node).jobSpawner(() -> ALLOWLIST)));
    assertTrue(out.startsWith("126:"), out);
    String note = io.fleetbus.node.confine.ConfinementNotes.first(126, out, null).orElseThrow();
    assertTrue(note.contains("'uptime'") && note.contains("`allowlist`"), note);
  }

  /** A managed process's launcher appends to the output file the node made for it, and creates nothing there. */
  @Test
  void aManagedProcessAppendsToItsOwnLogOnly() throws Exception {
    assumeTrue(Landlock.abi() > 0, "no Landlock on this kernel");
    NodeSettings node = sudo(Files.createDirectories(dir.resolve("scope")));
    Path logs = Files.createDirectories(node.dataDir().resolve("processes/logs"));
    Path log = Files.createFile(logs.resolve("svc.log")); // as ProcessLauncher does, unconfined
    Spawner managed = Confinement.of(node).managedSpawner(() -> ALLOWLIST);
    Process p = managed.start(new ProcessBuilder("/usr/bin/echo", "managed").redirectErrorStream(true)
      .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())));
    assertEquals(0, p.waitFor());
    assertEquals("managed\n", Files.readString(log));
    assertThrows(java.io.IOException.class, () -> managed.start(new ProcessBuilder("/usr/bin/echo", "x")
      .redirectOutput(ProcessBuilder.Redirect.appendTo(logs.resolve("new.log").toFile()))), "no file is created there");
    assertFalse(Files.exists(logs.resolve("new.log")));
    // on a sudo node a managed program executes only itself and the allowlisted programs (strict, not scope mode)
    Process shell = managed.start(new ProcessBuilder("/usr/bin/bash", "-c", "uptime; echo rc=$?; /usr/bin/echo ok")
      .redirectErrorStream(true));
    String out = new String(shell.getInputStream().readAllBytes());
    shell.waitFor();
    assertTrue(out.contains("rc=126") && out.contains("ok"), out);
  }

  @Test
  void addProcessStartsOnlyWhatRunCommandCould() {
    ProcessPrograms programs = new ProcessPrograms(() -> Set.of("sleep", "echo", "/opt/app/server"), new CommandRules(
      new JsonObject()));
    FleetException bash = assertThrows(FleetException.class, () -> programs.accept(config("/usr/bin/bash", "-c", "id")));
    assertEquals(403, bash.code().code);
    assertTrue(bash.getMessage().contains("not on this node's allowlist") && bash.getMessage().contains("job_launch"),
      bash.getMessage());
    programs.accept(config("/usr/bin/sleep", "100")); // allowlisted by name: its real file
    programs.accept(config("/opt/app/server")); // listed by its full path
    FleetException wrapped = assertThrows(FleetException.class, () -> new ProcessPrograms(() -> Set.of("nice", "sleep"),
      new CommandRules(new JsonObject())).accept(config("/usr/bin/nice", "bash", "-c", "id")));
    assertTrue(wrapped.getMessage().contains("bash"), wrapped.getMessage());
    FleetException loader = assertThrows(FleetException.class, () -> programs.accept(config("/lib64/ld-linux-x86-64.so.2",
      "/usr/bin/dash")));
    assertEquals(403, loader.code().code);
  }

  static ProcessConfig config(String exe, String... args) {
    return ProcessConfig.fromArgs(new JsonObject().put("name", "p").put("exe_path", exe).put("args", new JsonArray(List.of(
      (Object[]) args))).put("launch_mode", "off").put("priority", "Normal").put("time_delay", 0).put("time_to_init", 10)
      .put("relaunch_attempts", 5).put("relaunch_window_seconds", 600));
  }
}
