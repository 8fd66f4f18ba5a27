package io.fleetbus.node.processes;

import io.fleetbus.node.state.NodeBus;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's managed processes as the tools see them: add, change, delete, start, kill, restart,
 * set the launch mode, list. Each request runs on the supervisor's owner thread, in order with the
 * exits and schedule ticks it races with. Lives as long as the node, across cluster rejoins.
 */
public final class ManagedProcesses implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ManagedProcesses.class);
  private static final long TICK_MS = 1000;

  private final ProcessSupervisor supervisor;
  /** What a new or changed process must pass (ProcessPrograms: what run_command could start); nothing by default. */
  private volatile java.util.function.Consumer<ProcessConfig> admission = c -> { };

  /** From now on, add and update refuse what {@code admission} refuses (the node: see ProcessPrograms). */
  public ManagedProcesses admit(java.util.function.Consumer<ProcessConfig> admission) {
    this.admission = admission;
    return this;
  }

  private ManagedProcesses(ProcessSupervisor supervisor) {
    this.supervisor = supervisor;
  }

  /** Loads the saved processes from {@code dir}, re-adopts or starts them, and begins supervising. */
  public static ManagedProcesses open(Path dir, NodeBus bus, Clock clock, RelaunchPolicy policy) throws Exception {
    return open(dir, bus, clock, policy, io.fleetbus.node.confine.Spawner.DIRECT);
  }

  /** As above, every launch (re-adoption aside) through {@code spawner} (the node's confinement). */
  public static ManagedProcesses open(Path dir, NodeBus bus, Clock clock, RelaunchPolicy policy,
                                      io.fleetbus.node.confine.Spawner spawner) throws Exception {
    ProcessSupervisor supervisor = new ProcessSupervisor(dir, bus, clock, policy, spawner);
    supervisor.owner.call(() -> {
      supervisor.recover();
      return null;
    });
    supervisor.owner.every(TICK_MS, supervisor::applySchedules);
    return new ManagedProcesses(supervisor);
  }

  public JsonObject add(ProcessConfig config) throws Exception {
    admission.accept(config);
    return supervisor.owner.call(() -> {
      if (supervisor.table.processes.containsKey(config.name())) {
        throw FailureCode.CONFLICT.exception("a managed process named '" + config.name()
          + "' already exists on node " + supervisor.table.bus.nodeId() + "; change it with update_process");
      }
      ManagedProcess mp = new ManagedProcess(config);
      supervisor.table.processes.put(config.name(), mp);
      supervisor.applyLaunchMode(mp);
      supervisor.table.save();
      return ProcessTable.withWarnings(supervisor.table.view(mp), config);
    });
  }

  public JsonObject update(String name, JsonObject changes) throws Exception {
    return supervisor.owner.call(() -> {
      ManagedProcess mp = supervisor.table.require(name);
      ProcessConfig before = mp.config;
      ProcessConfig after = before.with(changes);
      admission.accept(after);
      if (!after.name().equals(name) && supervisor.table.processes.containsKey(after.name())) {
        throw FailureCode.CONFLICT.exception("cannot rename '" + name + "': '" + after.name() + "' already exists");
      }
      mp.config = after;
      if (!after.name().equals(name)) {
        supervisor.table.rename(name, mp);
      }
      boolean modeChanged = before.launchMode() != after.launchMode()
        || !before.schedules().toJson().equals(after.schedules().toJson());
      if (modeChanged) {
        mp.clearFailure();
        supervisor.applyLaunchMode(mp);
      }
      supervisor.table.save();
      boolean launchChanged = !before.argv().equals(after.argv()) || !before.env().equals(after.env())
        || !Objects.equals(before.cwd(), after.cwd()) || !before.priority().equals(after.priority());
      return ProcessTable.withWarnings(supervisor.table.view(mp), after)
        .put("restartNeeded", mp.isRunning() && launchChanged);
    });
  }

  public JsonObject delete(String name) throws Exception {
    return supervisor.owner.call(() -> {
      ManagedProcess mp = supervisor.table.require(name);
      mp.cancelPendingLaunch();
      mp.generation++;
      supervisor.table.processes.remove(name);
      supervisor.table.save();
      LOG.info("managed process deleted [name: {}, stillRunning: {}]", name, mp.isRunning());
      // deleting forgets the config only; kill_process first to stop the program as well
      return new JsonObject().put("name", name).put("deleted", true)
        .put("stillRunningPid", mp.isRunning() ? mp.handle.pid() : null);
    });
  }

  public JsonObject start(String name) throws Exception {
    return supervisor.owner.call(() -> {
      ManagedProcess mp = supervisor.table.require(name);
      supervisor.refuseOutsideSchedule(mp, "start");
      mp.clearFailure();
      mp.held = false;
      if (mp.isRunning()) {
        supervisor.table.save();
        return supervisor.table.view(mp).put("alreadyRunning", true);
      }
      supervisor.launchOrThrow(mp, "started by hand");
      return supervisor.table.view(mp);
    });
  }

  public JsonObject kill(String name) throws Exception {
    return supervisor.owner.call(() -> {
      ManagedProcess mp = supervisor.table.require(name);
      boolean wasRunning = mp.isRunning();
      mp.held = true;
      mp.cancelPendingLaunch();
      if (wasRunning) {
        supervisor.stop(mp);
      } else if (mp.status != ProcessStatus.SCHEDULED_OFF) {
        mp.status = ProcessStatus.STOPPED;
      }
      supervisor.table.save();
      return supervisor.table.view(mp).put("wasRunning", wasRunning);
    });
  }

  public JsonObject restart(String name) throws Exception {
    return supervisor.owner.call(() -> {
      ManagedProcess mp = supervisor.table.require(name);
      supervisor.refuseOutsideSchedule(mp, "restart");
      mp.held = false;
      mp.clearFailure();
      if (mp.isRunning()) {
        supervisor.stop(mp);
      }
      supervisor.launchOrThrow(mp, "restarted by hand");
      return supervisor.table.view(mp);
    });
  }

  public JsonObject setLaunchMode(String name, LaunchMode mode, WeeklySchedule schedules) throws Exception {
    return supervisor.owner.call(() -> {
      ManagedProcess mp = supervisor.table.require(name);
      mp.config = mp.config.withLaunchMode(mode, schedules);
      mp.held = false;
      mp.clearFailure();
      supervisor.applyLaunchMode(mp);
      supervisor.table.save();
      return supervisor.table.view(mp);
    });
  }

  public JsonArray list() throws Exception {
    return supervisor.owner.call(() -> {
      JsonArray all = new JsonArray();
      supervisor.table.processes.values().forEach(mp -> all.add(supervisor.table.view(mp)));
      return all;
    });
  }

  /** Applies the schedules for the clock's current time now, not at the next tick (tests drive the clock). */
  public void tick() throws Exception {
    supervisor.owner.call(() -> {
      supervisor.applySchedules();
      return null;
    });
  }

  /** Stops supervising; the processes themselves keep running for the next node start to re-adopt. */
  @Override
  public void close() {
    supervisor.owner.close();
  }
}
