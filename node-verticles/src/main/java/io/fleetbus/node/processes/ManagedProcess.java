package io.fleetbus.node.processes;

import io.fleetbus.node.state.ProcessRef;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ScheduledFuture;

/**
 * One managed process: its config and what the supervisor knows about it now. Confined to the
 * supervisor's owner thread, so plain fields suffice.
 */
final class ManagedProcess {
  ProcessConfig config;
  ProcessStatus status = ProcessStatus.STOPPED;
  /** The live process, or null. */
  ProcessHandle handle;
  /** The same process when this node started it (it knows the exit code); null when re-adopted. */
  Process process;
  /** Saved with the state so a restarted node can find the same process again. */
  ProcessRef ref;
  /** Bumped at every launch and stop, so a late exit notice of an earlier run is ignored. */
  long generation;
  Instant launchedAt;
  int restarts;
  Integer lastExitCode;
  Instant lastExitAt;
  /** Relaunch times inside the current window. */
  final Deque<Instant> relaunches = new ArrayDeque<>();
  /** Crashes in a row that came before time_to_init: they make the backoff grow. */
  int quickCrashes;
  /** Stopped by a person (kill_process): not relaunched until someone starts it. */
  boolean held;
  /** A stop we asked for is under way: the exit is not a crash. */
  boolean stopping;
  String failedReason;
  ScheduledFuture<?> pendingLaunch;

  ManagedProcess(ProcessConfig config) {
    this.config = config;
  }

  boolean isRunning() {
    return handle != null && handle.isAlive();
  }

  /** A fresh start: the relaunch budget and a failure are forgotten. */
  void clearFailure() {
    relaunches.clear();
    quickCrashes = 0;
    failedReason = null;
    if (status == ProcessStatus.FAILED) {
      status = isRunning() ? ProcessStatus.RUNNING : ProcessStatus.STOPPED;
    }
  }

  void cancelPendingLaunch() {
    if (pendingLaunch != null) {
      pendingLaunch.cancel(false);
      pendingLaunch = null;
    }
  }

  /** What get_process_list shows. */
  JsonObject view(Instant now) {
    JsonObject v = new JsonObject()
      .put("name", config.name())
      .put("status", status.json)
      .put("running", isRunning())
      .put("pid", isRunning() ? handle.pid() : null)
      .put("restarts", restarts)
      .put("lastExitCode", lastExitCode)
      .put("uptimeSeconds", isRunning() && launchedAt != null
        ? Math.max(0, now.getEpochSecond() - launchedAt.getEpochSecond()) : null)
      .put("held", held)
      .put("config", config.toView());
    if (lastExitAt != null) {
      v.put("lastExitAt", lastExitAt.toString());
    }
    if (failedReason != null) {
      v.put("failedReason", failedReason);
    }
    if (pendingLaunch != null) {
      v.put("relaunchPending", true);
    }
    return v;
  }

  /** What survives a node restart besides the config. */
  JsonObject runtimeJson() {
    JsonObject j = new JsonObject()
      .put("status", status.json)
      .put("restarts", restarts)
      .put("lastExitCode", lastExitCode)
      .put("held", held)
      .put("failedReason", failedReason);
    if (ref != null && isRunning()) {
      j.put("process", ref.toJson());
    }
    if (launchedAt != null) {
      j.put("launchedAt", launchedAt.toString());
    }
    return j;
  }

  void restore(JsonObject runtime) {
    if (runtime == null) {
      return;
    }
    status = ProcessStatus.parse(runtime.getString("status"));
    restarts = runtime.getInteger("restarts", 0);
    lastExitCode = runtime.getInteger("lastExitCode");
    held = runtime.getBoolean("held", false);
    failedReason = runtime.getString("failedReason");
    ref = ProcessRef.fromJson(runtime.getJsonObject("process"));
    String launched = runtime.getString("launchedAt");
    launchedAt = launched == null ? null : Instant.parse(launched);
  }
}
