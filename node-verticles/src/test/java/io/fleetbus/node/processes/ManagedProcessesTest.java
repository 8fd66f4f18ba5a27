package io.fleetbus.node.processes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.NodeBusFixture;
import io.fleetbus.node.TestClock;
import io.fleetbus.node.state.NodeBus;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Managed processes with real child processes, real files and the real event bus (local). */
@ExtendWith(VertxExtension.class)
@Timeout(60)
class ManagedProcessesTest {
  private static final RelaunchPolicy QUICK = new RelaunchPolicy(20, 200);

  @TempDir
  Path dir;
  private NodeBus bus;
  private final List<JsonObject> events = new CopyOnWriteArrayList<>();
  private final BlockingQueue<JsonObject> inbox = new LinkedBlockingQueue<>();
  private final List<ManagedProcesses> opened = new ArrayList<>();
  /** A word in every test process's arguments, so the test can count the copies the OS really runs. */
  private final String marker = "fleetbus-test-" + UUID.randomUUID();

  @BeforeEach
  void listen(Vertx vertx) throws Exception {
    bus = NodeBusFixture.registered("n1", vertx);
    vertx.eventBus().<JsonObject>consumer(Addresses.EVENTS, m -> {
      events.add(m.body());
      inbox.add(m.body());
    }).completion().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  @AfterEach
  void killLeftovers() {
    opened.forEach(ManagedProcesses::close);
    ProcessHandle.allProcesses().filter(this::isOurs).forEach(ProcessHandle::destroyForcibly);
  }

  private ManagedProcesses open(Clock clock) throws Exception {
    ManagedProcesses p = ManagedProcesses.open(dir.resolve("processes"), bus, clock, QUICK);
    opened.add(p);
    return p;
  }

  private boolean isOurs(ProcessHandle h) {
    return h.info().arguments().map(args -> List.of(args).contains(marker)).orElse(false);
  }

  /** Live copies: a killed copy this machine's init has not reaped yet (a zombie) is not running. */
  private long copiesRunning() {
    return ProcessHandle.allProcesses().filter(this::isOurs).filter(p -> !zombie(p.pid())).count();
  }

  private static boolean zombie(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    } catch (java.io.IOException e) {
      return true; // gone already
    }
  }

  /** A long sleeper whose shell stays the managed pid and carries the marker in its arguments. */
  private JsonObject sleeper(String name) {
    return new JsonObject().put("name", name).put("exe_path", "/bin/sh")
      .put("args", new JsonArray().add("-c").add("sleep 300; true").add(marker));
  }

  /** The next event of this type for this process, waiting on the event bus (never on time alone). */
  private JsonObject awaitEvent(String type, String name) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      JsonObject e = inbox.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (e == null) {
        throw new AssertionError("no " + type + " event for " + name + "; events so far: " + events);
      }
      if (type.equals(e.getString("type")) && name.equals(e.getString("name"))) {
        return e;
      }
    }
  }

  private static JsonObject find(JsonArray list, String name) {
    return list.stream().map(JsonObject.class::cast).filter(p -> name.equals(p.getString("name"))).findFirst()
      .orElseThrow(() -> new AssertionError(name + " not in " + list.encode()));
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  /** Issue 19, item 10: the seed's visibility and schedulePresetId are accepted, not kept, and named in the answer. */
  @Test
  void seedWindowFieldsAreAcceptedAndNamedAsNotSupported() throws Exception {
    ManagedProcesses processes = open(Clock.systemUTC());
    java.util.Map<String, io.fleetbus.node.tools.ToolHandler> tools = ProcessTools.handlers(processes);
    io.fleetbus.shared.catalog.ToolCatalog catalog = io.fleetbus.node.tools.TestNode.CATALOG;
    io.fleetbus.node.tools.CallContext ctx = io.fleetbus.node.tools.TestNode.ctx(
      io.fleetbus.node.tools.TestNode.settings("root", dir, null));
    JsonObject added = tools.get("add_process").run(catalog.validate(catalog.require("add_process"), new JsonObject()
      .put("name", "viewer").put("exe_path", "/bin/true").put("visibility", "Hidden").put("schedulePresetId", "nights")), ctx);
    JsonObject notes = added.getJsonObject("unsupported");
    assertTrue(notes.getString("visibility").startsWith("not supported on "), added.encode());
    assertTrue(notes.getString("schedulePresetId").contains("schedules"), added.encode());
    JsonObject updated = tools.get("update_process").run(catalog.validate(catalog.require("update_process"),
      new JsonObject().put("process_name", "viewer").put("schedulePresetId", null)), ctx);
    assertTrue(updated.getJsonObject("unsupported").containsKey("schedulePresetId"), updated.encode());
    assertFalse(updated.getJsonObject("unsupported").containsKey("visibility"), updated.encode());
    assertFalse(find(processes.list(), "viewer").encode().contains("Hidden"), "not kept");
  }

  @Test
  void crashLoopIsRelaunchedUpToItsBudgetThenMarkedFailed() throws Exception {
    Path script = dir.resolve("crash.sh");
    Files.writeString(script, "#!/bin/sh\necho starting\nexit 3\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    ManagedProcesses processes = open(Clock.systemUTC());
    processes.add(ProcessConfig.fromArgs(new JsonObject().put("name", "crasher").put("exe_path", script.toString())
      .put("launch_mode", "always").put("relaunch_attempts", 3).put("time_to_init", 10)
      .put("relaunch_window_seconds", 600)));

    JsonObject failed = awaitEvent("process.failed", "crasher");
    assertEquals(3, failed.getInteger("exitCode"));
    assertEquals("n1", failed.getString("nodeId"));
    List<Long> relaunchedPids = events.stream().filter(e -> "process.relaunched".equals(e.getString("type")))
      .map(e -> e.getLong("pid")).toList();
    assertEquals(3, relaunchedPids.size(), events.toString());
    assertEquals(3, relaunchedPids.stream().distinct().count(), "each relaunch is a new process");
    assertEquals(4, events.stream().filter(e -> "process.crashed".equals(e.getString("type"))).count() + 1,
      "three crashes announce a relaunch, the fourth ends in failed");

    JsonObject p = find(processes.list(), "crasher");
    assertEquals("failed", p.getString("status"));
    assertEquals(3, p.getInteger("restarts"));
    assertEquals(3, p.getInteger("lastExitCode"));
    assertFalse(p.getBoolean("running"));
    assertTrue(p.getString("failedReason").contains("relaunch"), p.getString("failedReason"));
    assertTrue(Files.readString(Path.of(p.getString("logFile"))).contains("starting"), "output goes to the log file");
  }

  @Test
  void scheduledProcessStartsAndStopsAtTheEdgesOfItsRange() throws Exception {
    // Monday 2026-11-23, one second before the range opens
    TestClock clock = new TestClock(Instant.parse("2026-11-23T08:59:59Z"), ZoneOffset.UTC);
    ManagedProcesses processes = open(clock);
    JsonArray schedules = new JsonArray().add(new JsonObject().put("days", new JsonArray().add("mon"))
      .put("ranges", new JsonArray().add(new JsonObject().put("start", "09:00").put("stop", "17:00"))));
    processes.add(ProcessConfig.fromArgs(sleeper("shift").put("launch_mode", "scheduled").put("schedules", schedules)));
    processes.tick();
    assertEquals("scheduled-off", find(processes.list(), "shift").getString("status"));
    assertEquals(0, copiesRunning());

    clock.set(Instant.parse("2026-11-23T09:00:00Z"));
    processes.tick();
    JsonObject running = find(processes.list(), "shift");
    assertEquals("running", running.getString("status"));
    long pid = running.getLong("pid");
    assertTrue(alive(pid));

    // a crash inside the range is recovered
    ProcessHandle.of(pid).orElseThrow().destroyForcibly();
    JsonObject relaunched = awaitEvent("process.relaunched", "shift");
    long newPid = relaunched.getLong("pid");
    assertNotEquals(pid, newPid);
    assertTrue(alive(newPid));

    clock.set(Instant.parse("2026-11-23T16:59:59Z"));
    processes.tick();
    assertEquals(newPid, find(processes.list(), "shift").getLong("pid"));

    clock.set(Instant.parse("2026-11-23T17:00:00Z"));
    processes.tick();
    JsonObject off = find(processes.list(), "shift");
    assertEquals("scheduled-off", off.getString("status"));
    assertFalse(alive(newPid), "stopped at the end of the range");
    FleetException refused = assertThrows(FleetException.class, () -> processes.start("shift"));
    assertEquals(FailureCode.CONFLICT, refused.code());
  }

  @Test
  void nodeRestartReadoptsTheRunningProcessAndKeepsTheConfig() throws Exception {
    ManagedProcesses first = open(Clock.systemUTC());
    first.add(ProcessConfig.fromArgs(sleeper("keeper").put("launch_mode", "always").put("priority", "Low")
      .put("env", new JsonObject().put("MODE", "prod").put("API_TOKEN", "s3cr3t")).put("relaunch_attempts", "7")));
    first.add(ProcessConfig.fromArgs(new JsonObject().put("name", "manual").put("exe_path", "/bin/true")
      .put("cwd", dir.toString())));
    long pid = find(first.list(), "keeper").getLong("pid");
    first.close();

    ManagedProcesses second = open(Clock.systemUTC());
    JsonObject keeper = find(second.list(), "keeper");
    assertEquals("running", keeper.getString("status"));
    assertEquals(pid, keeper.getLong("pid"), "the running process is re-adopted");
    assertEquals(1, copiesRunning(), "no second copy");
    assertEquals(7, keeper.getJsonObject("config").getInteger("relaunch_attempts"));
    assertEquals("prod", keeper.getJsonObject("config").getJsonObject("env").getString("MODE"));
    assertEquals("****", keeper.getJsonObject("config").getJsonObject("env").getString("API_TOKEN"), "secrets are masked");
    assertTrue(Files.readString(dir.resolve("processes/processes.json")).contains("s3cr3t"), "but kept to launch with");
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("processes"))));
    assertEquals(dir.toString(), find(second.list(), "manual").getJsonObject("config").getString("cwd"));

    // the re-adopted process is supervised: its crash is noticed and it is relaunched
    ProcessHandle killed = ProcessHandle.of(pid).orElseThrow();
    killed.destroyForcibly();
    long relaunched = awaitEvent("process.relaunched", "keeper").getLong("pid");
    assertTrue(alive(relaunched));
    killed.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS); // the killed copy may not be reaped yet
    // the SIGKILLed copy is not counted even while the kernel still lists it (a CI run counted it once, mid-exit)
    long others = ProcessHandle.allProcesses().filter(this::isOurs).filter(p -> p.pid() != pid && !zombie(p.pid()))
      .count();
    assertEquals(1, others, () -> "killed " + pid + ", relaunched " + relaunched + ", running: "
      + ProcessHandle.allProcesses().filter(this::isOurs).map(h -> h.pid() + " " + h.info().arguments().map(List::of)
        .orElse(List.of()) + " parent " + h.parent().map(ProcessHandle::pid).orElse(-1L)).toList());
  }

  /** On a sudo node a managed process runs confined to the file scope (it may start helpers inside it). */
  @Test
  void managedProcessesRunConfined() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(io.fleetbus.node.confine.Landlock.abi() > 0, "no Landlock on this kernel");
    Path scope = Files.createDirectories(dir.resolve("scope"));
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.writeString(outside.resolve("secret.txt"), "MANAGED-SECRET\n");
    Path data = dir.resolve("data");
    io.fleetbus.node.settings.NodeSettings sudo = new io.fleetbus.node.settings.NodeSettings("n1", "i1", "sudo", new JsonObject(), data, 1000,
      List.of("cat"), 4096, 1000, io.fleetbus.node.settings.ToolSettings.fromConf(new JsonObject().put("paths",
        new JsonObject().put("allow", new JsonArray().add(scope.toString()).add("/usr"))), data));
    ManagedProcesses confined = ManagedProcesses.open(data.resolve("processes"), bus, Clock.systemUTC(), QUICK,
      io.fleetbus.node.confine.Confinement.of(sudo).scopeSpawner());
    opened.add(confined);
    confined.add(ProcessConfig.fromArgs(new JsonObject().put("name", "fenced").put("exe_path", "/bin/sh").put("priority", "Low")
      .put("cwd", scope.toString()).put("args", new JsonArray().add("-c").add("cat " + outside + "/secret.txt; echo in > "
        + scope + "/m-wrote; echo out > " + outside + "/m-wrote; echo done; exit 3").add(marker))));
    confined.start("fenced");
    awaitEvent("process.crashed", "fenced"); // its exit (code 3), reported by the supervisor
    String log = Files.readString(data.resolve("processes").resolve("logs").resolve("fenced.log"));
    assertTrue(log.contains("done") && !log.contains("MANAGED-SECRET"), log);
    assertTrue(Files.exists(scope.resolve("m-wrote")), "inside the scope it writes");
    assertTrue(!Files.exists(outside.resolve("m-wrote")), "outside it does not");
  }

  @Test
  void alwaysProcessThatEndedWhileTheNodeWasDownIsStartedOnce() throws Exception {
    ManagedProcesses first = open(Clock.systemUTC());
    first.add(ProcessConfig.fromArgs(sleeper("keeper").put("launch_mode", "always")));
    long pid = find(first.list(), "keeper").getLong("pid");
    first.close();
    ProcessHandle gone = ProcessHandle.of(pid).orElseThrow();
    gone.destroyForcibly();
    gone.onExit().get(5, TimeUnit.SECONDS);

    ManagedProcesses second = open(Clock.systemUTC());
    JsonObject keeper = find(second.list(), "keeper");
    assertEquals("running", keeper.getString("status"));
    assertNotEquals(pid, keeper.getLong("pid"));
    assertEquals(1, copiesRunning());
  }

  @Test
  void killStopsTheTreeAndHoldsAnAlwaysProcessUntilStarted() throws Exception {
    ManagedProcesses processes = open(Clock.systemUTC());
    Path childPid = dir.resolve("child.pid");
    processes.add(ProcessConfig.fromArgs(new JsonObject().put("name", "tree").put("exe_path", "/bin/sh")
      .put("args", new JsonArray().add("-c").add("sleep 300 & echo $! > " + childPid + "; wait").add(marker))
      .put("launch_mode", "always")));
    ProcessHandle shell = ProcessHandle.of(find(processes.list(), "tree").getLong("pid")).orElseThrow();
    // the child appears when the shell has forked it: wait on the process tree, not on time
    ProcessHandle child = shell.children().findFirst().orElseGet(() -> awaitChild(shell));

    JsonObject killed = processes.kill("tree");
    assertTrue(killed.getBoolean("wasRunning"));
    assertEquals("stopped", killed.getString("status"));
    assertTrue(killed.getBoolean("held"));
    assertFalse(child.isAlive(), "the child went with its parent");
    assertTrue(events.stream().noneMatch(e -> "process.relaunched".equals(e.getString("type"))), "a kill is not a crash");

    JsonObject started = processes.start("tree");
    assertEquals("running", started.getString("status"));
    assertFalse(started.getBoolean("held"));
    processes.kill("tree");
  }

  private static ProcessHandle awaitChild(ProcessHandle parent) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      var child = parent.children().findFirst();
      if (child.isPresent()) {
        return child.get();
      }
      Thread.onSpinWait();
    }
    throw new AssertionError("no child process appeared under " + parent.pid());
  }

  @Test
  void badRequestsChangeNothing() throws Exception {
    ManagedProcesses processes = open(Clock.systemUTC());
    processes.add(ProcessConfig.fromArgs(new JsonObject().put("name", "one").put("exe_path", "/bin/true")));
    FleetException relative = assertThrows(FleetException.class,
      () -> processes.add(ProcessConfig.fromArgs(new JsonObject().put("name", "two").put("exe_path", "true"))));
    assertEquals(FailureCode.BAD_REQUEST, relative.code());
    assertEquals(FailureCode.CONFLICT, assertThrows(FleetException.class,
      () -> processes.add(ProcessConfig.fromArgs(new JsonObject().put("name", "one").put("exe_path", "/bin/false")))).code());
    assertEquals(FailureCode.BAD_REQUEST, assertThrows(FleetException.class,
      () -> processes.setLaunchMode("one", LaunchMode.SCHEDULED, WeeklySchedule.EMPTY)).code());
    assertEquals(FailureCode.NOT_FOUND, assertThrows(FleetException.class, () -> processes.start("nope")).code());
    JsonArray list = processes.list();
    assertEquals(1, list.size());
    assertEquals("off", find(list, "one").getJsonObject("config").getString("launch_mode"));
    assertEquals("/bin/true", find(list, "one").getJsonObject("config").getString("exe_path"));
    assertNull(find(list, "one").getValue("pid"));
  }

  @Test
  void updateChangesOnlyTheGivenFieldsAndDeleteLeavesTheProgramRunning() throws Exception {
    ManagedProcesses processes = open(Clock.systemUTC());
    processes.add(ProcessConfig.fromArgs(sleeper("svc").put("cwd", dir.toString())));
    JsonObject started = processes.start("svc");
    JsonObject updated = processes.update("svc", new JsonObject().put("process_name", "svc").put("priority", "High")
      .put("name", "svc2"));
    assertEquals("svc2", updated.getString("name"));
    assertEquals("High", updated.getJsonObject("config").getString("priority"));
    assertEquals(dir.toString(), updated.getJsonObject("config").getString("cwd"));
    assertTrue(updated.getBoolean("restartNeeded"));
    JsonObject deleted = processes.delete("svc2");
    assertEquals(started.getLong("pid"), deleted.getLong("stillRunningPid"));
    assertTrue(alive(started.getLong("pid")));
    assertTrue(processes.list().isEmpty());
  }
}
