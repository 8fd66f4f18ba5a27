package io.fleetbus.node.processes;

import io.fleetbus.node.state.NodeBus;
import io.fleetbus.node.state.OwnerThread;
import io.fleetbus.node.state.ProcessRef;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the node's managed processes in the state their launch mode asks for: relaunches crashed
 * {@code always} processes with backoff until their budget is spent, starts and stops
 * {@code scheduled} ones at the edges of their time ranges, and after a node restart finds a
 * process that is still running again instead of starting a second copy.
 *
 * <p>Everything here runs on the {@link OwnerThread}: exits arrive from {@link Process#onExit()},
 * and a one-second tick reads the (injectable) clock for schedules. Neither depends on a Vert.x
 * instance, so supervision goes on while the node has no cluster. {@link ManagedProcesses} is the
 * face the tools use.
 */
final class ProcessSupervisor {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessSupervisor.class);
  private static final long TICK_MS = 1000;
  private static final long LOG_CAP_BYTES = 8L * 1024 * 1024;

  final OwnerThread owner = new OwnerThread("fleetbus-processes");
  final ProcessTable table;
  private final ProcessStore store;
  private final ProcessLauncher launcher;
  private final Clock clock;
  private final RelaunchPolicy policy;

  ProcessSupervisor(Path dir, NodeBus bus, Clock clock, RelaunchPolicy policy, io.fleetbus.node.confine.Spawner spawner) {
    this.store = new ProcessStore(dir);
    this.launcher = new ProcessLauncher(dir.resolve("logs"), LOG_CAP_BYTES);
    this.launcher.spawner(spawner);
    this.table = new ProcessTable(store, launcher, bus, clock);
    this.clock = clock;
    this.policy = policy;
  }

  // ---- supervision (owner thread) ----

  void recover() throws IOException {
    for (ManagedProcess mp : store.load()) {
      table.processes.put(mp.config.name(), mp);
      Optional<ProcessHandle> live = mp.ref == null ? Optional.empty() : mp.ref.findLive();
      if (live.isPresent()) {
        adopt(mp, live.get());
        continue;
      }
      mp.ref = null;
      if (mp.status == ProcessStatus.RUNNING) {
        // it ended while the node was away: how is unknown
        mp.status = ProcessStatus.STOPPED;
        mp.lastExitCode = null;
      }
      if (mp.config.launchMode() == LaunchMode.ALWAYS && !mp.held && mp.status != ProcessStatus.FAILED) {
        long delayMs = TimeUnit.SECONDS.toMillis(mp.config.timeDelay());
        mp.pendingLaunch = owner.schedule(() -> {
          mp.pendingLaunch = null;
          if (table.isCurrent(mp) && !mp.isRunning() && wantsToRun(mp)) {
            tryLaunch(mp, "node started");
          }
        }, delayMs);
      }
    }
    applySchedules();
    table.save();
  }

  private void adopt(ManagedProcess mp, ProcessHandle handle) {
    long generation = ++mp.generation;
    mp.handle = handle;
    mp.process = null;
    mp.status = ProcessStatus.RUNNING;
    if (mp.launchedAt == null) {
      mp.launchedAt = clock.instant();
    }
    handle.onExit().thenRun(() -> owner.execute(() -> onExit(mp, generation, null)));
    LOG.info("managed process still running after a node restart: re-adopted, not started again [name: {}, pid: {}]",
      mp.config.name(), handle.pid());
  }

  void applyLaunchMode(ManagedProcess mp) {
    switch (mp.config.launchMode()) {
      case ALWAYS -> {
        if (!mp.isRunning()) {
          tryLaunch(mp, "launch mode always");
        }
      }
      case SCHEDULED -> applySchedule(mp, now());
      case OFF -> mp.cancelPendingLaunch(); // a running process runs on; a crash is reported, not relaunched
    }
  }

  void applySchedules() {
    ZonedDateTime now = now();
    for (ManagedProcess mp : List.copyOf(table.processes.values())) {
      if (mp.config.launchMode() == LaunchMode.SCHEDULED) {
        applySchedule(mp, now);
      }
    }
  }

  private void applySchedule(ManagedProcess mp, ZonedDateTime now) {
    if (mp.config.schedules().isActive(now)) {
      if (!mp.isRunning() && !mp.held && mp.status != ProcessStatus.FAILED && mp.pendingLaunch == null) {
        tryLaunch(mp, "schedule range started");
      }
      return;
    }
    // outside the ranges: a hold or a failure ends with the range, the next one starts afresh
    mp.held = false;
    mp.clearFailure();
    mp.cancelPendingLaunch();
    if (mp.isRunning()) {
      LOG.info("schedule range ended: stopping managed process [name: {}, pid: {}]", mp.config.name(), mp.handle.pid());
      stop(mp);
      table.save();
    } else if (mp.status != ProcessStatus.SCHEDULED_OFF) {
      mp.status = ProcessStatus.SCHEDULED_OFF;
      table.save();
    }
  }

  private boolean tryLaunch(ManagedProcess mp, String reason) {
    try {
      launch(mp, reason);
      return true;
    } catch (FleetException | IOException e) {
      mp.status = ProcessStatus.FAILED;
      mp.failedReason = e.getMessage();
      LOG.error("managed process could not be started [name: {}, reason: {}]", mp.config.name(), e.getMessage());
      table.publish("process.failed", mp, new JsonObject().put("reason", e.getMessage()));
      table.save();
      return false;
    }
  }

  void launchOrThrow(ManagedProcess mp, String reason) {
    if (!tryLaunch(mp, reason)) {
      throw FailureCode.TOOL_FAILED.exception(mp.failedReason);
    }
  }

  private void launch(ManagedProcess mp, String reason) throws IOException {
    mp.cancelPendingLaunch();
    Process process = launcher.launch(mp.config);
    long generation = ++mp.generation;
    mp.process = process;
    mp.handle = io.fleetbus.node.tools.command.ProcessRunner.handle(process);
    mp.ref = ProcessRef.of(mp.handle);
    mp.launchedAt = clock.instant();
    mp.status = ProcessStatus.RUNNING;
    mp.stopping = false;
    mp.failedReason = null;
    process.onExit().thenAccept(p -> owner.execute(() -> onExit(mp, generation, p.exitValue())));
    LOG.info("managed process started [name: {}, pid: {}, reason: {}]", mp.config.name(), process.pid(), reason);
    table.save();
  }

  /** Stops the process tree and settles its exit at once (blocks for at most the SIGTERM grace). */
  void stop(ManagedProcess mp) {
    mp.cancelPendingLaunch();
    ProcessHandle handle = mp.handle;
    if (handle == null) {
      return;
    }
    mp.stopping = true;
    long generation = mp.generation;
    ProcessRunner.stopTree(handle);
    Integer code = null;
    try {
      if (mp.process != null && mp.process.waitFor(1, TimeUnit.SECONDS)) {
        code = mp.process.exitValue();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // the exit notice may still be queued behind this task: settle it here, the late one is ignored
    onExit(mp, generation, code);
  }

  private void onExit(ManagedProcess mp, long generation, Integer exitCode) {
    if (generation != mp.generation || !table.isCurrent(mp)) {
      return;
    }
    mp.generation++;
    Instant now = clock.instant();
    long pid = mp.handle == null ? -1 : mp.handle.pid();
    Duration uptime = mp.launchedAt == null ? Duration.ZERO : Duration.between(mp.launchedAt, now);
    mp.handle = null;
    mp.process = null;
    mp.ref = null;
    mp.lastExitCode = exitCode;
    mp.lastExitAt = now;
    if (mp.stopping) {
      mp.stopping = false;
      boolean off = mp.config.launchMode() == LaunchMode.SCHEDULED && !mp.config.schedules().isActive(now());
      mp.status = off ? ProcessStatus.SCHEDULED_OFF : ProcessStatus.STOPPED;
      LOG.info("managed process stopped [name: {}, pid: {}, exitCode: {}]", mp.config.name(), pid, exitCode);
      table.save();
      return;
    }
    LOG.warn("managed process exited [name: {}, pid: {}, exitCode: {}, uptimeMs: {}]", mp.config.name(), pid, exitCode,
      uptime.toMillis());
    onCrash(mp, exitCode, pid, uptime);
  }

  private void onCrash(ManagedProcess mp, Integer exitCode, long pid, Duration uptime) {
    JsonObject details = new JsonObject().put("pid", pid).put("exitCode", exitCode).put("uptimeMs", uptime.toMillis());
    if (mp.held || !wantsToRun(mp)) {
      mp.status = exitCode != null && exitCode == 0 ? ProcessStatus.STOPPED : ProcessStatus.CRASHED;
      if (mp.status == ProcessStatus.CRASHED) {
        table.publish("process.crashed", mp, details);
      }
      table.save();
      return;
    }
    Instant now = clock.instant();
    Instant windowStart = now.minusSeconds(mp.config.relaunchWindow());
    while (!mp.relaunches.isEmpty() && mp.relaunches.peekFirst().isBefore(windowStart)) {
      mp.relaunches.removeFirst();
    }
    if (mp.relaunches.size() >= mp.config.relaunchAttempts()) {
      mp.status = ProcessStatus.FAILED;
      mp.failedReason = "crashed (exit code " + exitCode + ") after " + mp.relaunches.size() + " relaunches within "
        + mp.config.relaunchWindow() + " s, the limit of relaunch_attempts; start_process tries again";
      LOG.error("managed process failed: relaunch budget spent [name: {}, relaunches: {}, windowSeconds: {}]",
        mp.config.name(), mp.relaunches.size(), mp.config.relaunchWindow());
      table.publish("process.failed", mp, details.put("reason", mp.failedReason));
      table.save();
      return;
    }
    if (uptime.getSeconds() >= mp.config.timeToInit()) {
      mp.quickCrashes = 0;
    }
    long delayMs = policy.delayMs(mp.quickCrashes);
    if (uptime.getSeconds() < mp.config.timeToInit()) {
      mp.quickCrashes++;
    }
    mp.status = ProcessStatus.CRASHED;
    table.publish("process.crashed", mp, details.put("relaunchInMs", delayMs));
    mp.pendingLaunch = owner.schedule(() -> relaunch(mp), delayMs);
    table.save();
  }

  private void relaunch(ManagedProcess mp) {
    mp.pendingLaunch = null;
    if (!table.isCurrent(mp) || mp.held || mp.isRunning() || !wantsToRun(mp)) {
      return;
    }
    mp.relaunches.addLast(clock.instant());
    mp.restarts++;
    try {
      launch(mp, "relaunch after a crash");
      table.publish("process.relaunched", mp, new JsonObject().put("pid", mp.handle.pid())
        .put("attempt", mp.relaunches.size()).put("relaunchAttempts", mp.config.relaunchAttempts()));
    } catch (FleetException | IOException e) {
      LOG.warn("relaunch failed [name: {}, reason: {}]", mp.config.name(), e.getMessage());
      onCrash(mp, null, -1, Duration.ZERO);
    }
  }

  // ---- helpers ----

  private boolean wantsToRun(ManagedProcess mp) {
    return switch (mp.config.launchMode()) {
      case ALWAYS -> true;
      case SCHEDULED -> mp.config.schedules().isActive(now());
      case OFF -> false;
    };
  }

  void refuseOutsideSchedule(ManagedProcess mp, String verb) {
    if (mp.config.launchMode() == LaunchMode.SCHEDULED && !mp.config.schedules().isActive(now())) {
      throw FailureCode.CONFLICT.exception("'" + mp.config.name() + "' is scheduled and outside its time ranges now, "
        + "so the schedule would stop it again; to " + verb + " it now, set_launch_mode to always or off first");
    }
  }

  private ZonedDateTime now() {
    return ZonedDateTime.now(clock);
  }

}
