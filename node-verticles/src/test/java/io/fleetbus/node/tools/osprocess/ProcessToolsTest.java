package io.fleetbus.node.tools.osprocess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import oshi.SystemInfo;

/**
 * Real processes: each test starts copies of sleep under a unique name, so nothing else on this
 * shared machine can match, and kills its leftovers by pid.
 */
@Timeout(60)
class ProcessToolsTest {
  private static final SystemInfo OSHI = new SystemInfo();
  @TempDir
  Path dir;
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void cleanUp() {
    started.forEach(Process::destroyForcibly);
  }

  private String uniqueName() {
    return "fbt" + UUID.randomUUID().toString().substring(0, 8); // within the 15 characters Linux keeps
  }

  private Process sleeper(String name) throws Exception {
    Path exe = dir.resolve(name);
    if (!Files.exists(exe)) {
      Files.copy(Path.of("/bin/sleep"), exe);
      exe.toFile().setExecutable(true);
    }
    Process p = new ProcessBuilder(exe.toString(), "300").start();
    started.add(p);
    return p;
  }

  private JsonObject manage(NodeSettings s, ProcessGuard guard, JsonObject args) throws Exception {
    return TestNode.run(new ManageProcessTool(OSHI, guard), "manage_process", args, s);
  }

  private static char state(long pid) throws Exception {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    return stat.charAt(stat.lastIndexOf(')') + 2);
  }

  /** Signals land asynchronously: poll the kernel's view of the process until it shows the state. */
  private static void awaitState(long pid, java.util.function.IntPredicate wanted, String what) throws Exception {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
    char c;
    while (!wanted.test(c = state(pid))) {
      assertTrue(System.nanoTime() < deadline, "pid " + pid + " not " + what + " (state " + c + ")");
      Thread.onSpinWait();
      java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
    }
  }

  @Test
  void listProcessesFindsTheOwnerOfAListeningPort() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      JsonObject r = TestNode.run(new ListProcessesTool(OSHI), "list_processes",
        new JsonObject().put("port", server.getLocalPort()), TestNode.settings("unprivileged", dir, null));
      JsonArray procs = r.getJsonArray("processes");
      assertEquals(1, procs.size(), r.encodePrettily());
      assertEquals(ProcessHandle.current().pid(), procs.getJsonObject(0).getLong("pid"));
      assertTrue(procs.getJsonObject(0).getJsonArray("ports").contains(server.getLocalPort()));
    }
  }

  @Test
  void listProcessesFiltersByName() throws Exception {
    String name = uniqueName();
    Process p = sleeper(name);
    JsonObject r = TestNode.run(new ListProcessesTool(OSHI), "list_processes",
      new JsonObject().put("name", name.toUpperCase()), TestNode.settings("unprivileged", dir, null));
    assertEquals(1, r.getInteger("count"), r.encodePrettily());
    assertEquals(p.pid(), r.getJsonArray("processes").getJsonObject(0).getLong("pid"));
    assertTrue(r.getJsonArray("processes").getJsonObject(0).getString("command").endsWith("300"));
  }

  @Test
  void suspendResumeAndKillAProcessByName() throws Exception {
    NodeSettings s = TestNode.settings("sudo", dir, null);
    ProcessGuard guard = new ProcessGuard(List.of());
    String name = uniqueName();
    Process p = sleeper(name);
    manage(s, guard, new JsonObject().put("name_pattern", name).put("action", "suspend"));
    awaitState(p.pid(), c -> c == 'T', "stopped");
    manage(s, guard, new JsonObject().put("name_pattern", name).put("action", "resume"));
    awaitState(p.pid(), c -> c != 'T', "running again");
    JsonObject r = manage(s, guard, new JsonObject().put("name_pattern", name).put("action", "kill"));
    assertEquals("killed", r.getJsonArray("processes").getJsonObject(0).getString("result"));
    assertFalse(p.isAlive());
  }

  @Test
  void globKillsEveryMatchAndPoliteKillTerminates() throws Exception {
    NodeSettings s = TestNode.settings("sudo", dir, null);
    String prefix = uniqueName().substring(0, 9);
    Process a = sleeper(prefix + "a");
    Process b = sleeper(prefix + "b");
    JsonObject r = manage(s, new ProcessGuard(List.of()), new JsonObject().put("name_pattern", prefix + "*")
      .put("match_exact", false).put("action", "kill").put("force", false));
    assertEquals(2, r.getInteger("count"));
    assertEquals("terminated", r.getJsonArray("processes").getJsonObject(0).getString("result"));
    assertFalse(a.isAlive() || b.isAlive());
  }

  @Test
  void aPatternThatHitsAProtectedNameDoesNothingAtAll() throws Exception {
    NodeSettings s = TestNode.settings("sudo", dir, null);
    String prefix = uniqueName().substring(0, 9);
    Process ordinary = sleeper(prefix + "a");
    Process precious = sleeper(prefix + "db");
    FleetException e = assertThrows(FleetException.class, () -> manage(s, new ProcessGuard(List.of(prefix + "db")),
      new JsonObject().put("name_pattern", prefix + "*").put("match_exact", false).put("action", "kill")));
    assertEquals(FailureCode.FORBIDDEN, e.code());
    assertTrue(e.getMessage().contains("Nothing was done"), e.getMessage());
    assertTrue(ordinary.isAlive() && precious.isAlive());
  }

  @Test
  void guardRefusesInitTheAgentItselfItsParentAndSshd() {
    long self = ProcessHandle.current().pid();
    long parent = ProcessHandle.current().parent().orElseThrow().pid();
    ProcessGuard guard = new ProcessGuard(List.of("postgres"));
    assertTrue(guard.refusal(1, "anything").isPresent());
    assertTrue(guard.refusal(self, "java").isPresent());
    assertTrue(guard.refusal(parent, "bash").isPresent());
    assertTrue(guard.refusal(4242, "sshd").isPresent());
    assertTrue(guard.refusal(4242, "systemd-journald").isPresent());
    assertTrue(guard.refusal(4242, "Postgres").isPresent());
    assertFalse(guard.refusal(4242, "worker").isPresent());
  }

  @Test
  void wildcardOnlyPatternsAndUnknownNamesAreRefused() {
    NodeSettings s = TestNode.settings("sudo", dir, null);
    assertEquals(FailureCode.BAD_REQUEST, assertThrows(FleetException.class, () -> manage(s, new ProcessGuard(List.of()),
      new JsonObject().put("name_pattern", "*").put("match_exact", false).put("action", "kill"))).code());
    assertEquals(FailureCode.NOT_FOUND, assertThrows(FleetException.class, () -> manage(s, new ProcessGuard(List.of()),
      new JsonObject().put("name_pattern", uniqueName()).put("action", "kill"))).code());
  }
}
