package io.fleetbus.node.jobs;

import io.fleetbus.node.state.NodeBus;
import io.fleetbus.node.state.OwnerThread;
import io.fleetbus.node.state.ProcessRef;
import io.fleetbus.node.tools.CallControl;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs jobs and follows them to the end: starts the process and its output pumps, notices silence
 * (stalled) and overtime (timed out), records how each ended, and tells the hub once one is
 * reachable. After a node restart a job whose process still lives is re-attached by pid; one whose
 * process is gone is marked failed. Everything here runs on the {@link OwnerThread}.
 */
final class JobSupervisor {
  private static final Logger LOG = LoggerFactory.getLogger(JobSupervisor.class);
  /** How long output still in the pipes may take to reach the log after the process ended. */
  private static final long DRAIN_MS = 2000;

  final Map<String, Job> jobs = new LinkedHashMap<>();
  final OwnerThread owner = new OwnerThread("fleetbus-jobs");
  final NodeBus bus;
  final JobStore store;
  final Clock clock;
  private final long logCapBytes;

  private io.fleetbus.node.confine.Spawner spawner = io.fleetbus.node.confine.Spawner.DIRECT;

  /** Where jobs start from (the node's confined launchers); set before the first launch. */
  void spawner(io.fleetbus.node.confine.Spawner spawner) {
    this.spawner = spawner;
  }

  JobSupervisor(JobStore store, NodeBus bus, Clock clock, long logCapBytes) {
    this.store = store;
    this.bus = bus;
    this.clock = clock;
    this.logCapBytes = logCapBytes;
  }

  void recover() throws IOException {
    for (Job job : store.loadAll()) {
      jobs.put(job.id, job);
      if (job.status.isFinal()) {
        continue;
      }
      Optional<ProcessHandle> live = job.ref == null ? Optional.empty() : job.ref.findLive();
      if (live.isPresent()) {
        reattach(job, live.get());
      } else {
        finish(job, JobStatus.FAILED, null, "node restarted while the job was running, and its process is gone");
      }
    }
  }

  private void reattach(Job job, ProcessHandle handle) throws IOException {
    job.handle = handle;
    job.reattached = true;
    job.status = JobStatus.RUNNING;
    job.log = OutputLog.open(store.dir(job.id), logCapBytes);
    handle.onExit().thenRun(() -> owner.execute(() -> onExit(job, null)));
    store.save(job);
    LOG.info("job still running after a node restart: re-attached by pid [job: {}, pid: {}]", job.id, handle.pid());
  }

  Job launch(JobRequest req, CallControl control, String principal, String callId) throws IOException {
    Job job = new Job(UUID.randomUUID().toString(), req, principal, callId, clock.millis());
    jobs.put(job.id, job);
    store.save(job);
    Process process;
    try {
      job.log = OutputLog.open(store.dir(job.id), logCapBytes);
      process = JobLauncher.start(req, store.dir(job.id), spawner);
    } catch (IOException | FleetException e) {
      // nothing ran: leave no trace of the attempt
      jobs.remove(job.id);
      job.log.close();
      store.delete(job.id);
      throw e instanceof FleetException fe ? fe
        : FailureCode.TOOL_FAILED.exception("cannot start the job: " + e.getMessage());
    }
    job.handle = io.fleetbus.node.tools.command.ProcessRunner.handle(process);
    job.ref = ProcessRef.of(job.handle);
    job.startedAtMs = clock.millis();
    job.lastOutputAtMs = job.startedAtMs;
    job.status = JobStatus.RUNNING;
    if (control.isStreaming()) {
      control.keepOpenAfterCall();
      job.stream = new JobStream(control);
    }
    CompletableFuture<Void> out = new OutputPump(process.getInputStream(), "stdout", job.log, job.stream,
      t -> job.lastOutputAtMs = t, clock).start(job.id);
    CompletableFuture<Void> err = new OutputPump(process.getErrorStream(), "stderr", job.log, job.stream,
      t -> job.lastOutputAtMs = t, clock).start(job.id);
    // a grandchild that kept the pipes open must not hold the result back for long
    process.onExit()
      .thenCompose(p -> CompletableFuture.allOf(out, err).completeOnTimeout(null, DRAIN_MS, TimeUnit.MILLISECONDS))
      .thenRun(() -> owner.execute(() -> onExit(job, process.exitValue())));
    store.save(job);
    LOG.info("job started [job: {}, pid: {}, principal: {}, call: {}]", job.id, process.pid(), principal, callId);
    return job;
  }

  private void onExit(Job job, Integer exitCode) {
    if (job.status.isFinal()) {
      return;
    }
    if (job.cancelledBy != null) {
      finish(job, JobStatus.CANCELLED, exitCode, "cancelled by " + job.cancelledBy);
    } else if (job.timedOut) {
      finish(job, JobStatus.TIMED_OUT, exitCode, "stopped after running longer than max_runtime_seconds ("
        + job.maxRuntimeSeconds + ")");
    } else if (job.reattached) {
      finish(job, JobStatus.FAILED, null, "outcome unknown: the node restarted while the job ran; it was re-attached "
        + "by pid and has now ended, but its exit code and later output could not be read");
    } else if (exitCode != null && exitCode == 0) {
      finish(job, JobStatus.COMPLETED, 0, null);
    } else {
      String tail = stderrTail(job);
      String why = spawner == io.fleetbus.node.confine.Spawner.DIRECT ? "" : io.fleetbus.node.confine.ConfinementNotes
        .first(exitCode, tail, null).map(n -> " (confinement: " + n + ")").orElse("");
      finish(job, JobStatus.FAILED, exitCode, "exit code " + exitCode + tail + why);
    }
  }

  void finish(Job job, JobStatus status, Integer exitCode, String error) {
    job.status = status;
    job.exitCode = exitCode;
    job.error = error;
    job.endedAtMs = clock.millis();
    job.handle = null;
    if (job.log != null) {
      job.log.close();
    }
    LOG.info("job finished [job: {}, status: {}, exitCode: {}]", job.id, status.json(), exitCode);
    try {
      save(job);
    } finally {
      JsonObject view = job.view();
      job.stream.end(view);
      job.done.complete(view);
    }
    reportFinished();
  }

  /** Checks every live job against its clocks: silence marks it stalled, overtime stops it. */
  void tick() {
    long now = clock.millis();
    for (Job job : List.copyOf(jobs.values())) {
      if (job.status.isFinal() || job.handle == null) {
        continue;
      }
      if (job.maxRuntimeSeconds > 0 && !job.timedOut && now - job.startedAtMs >= job.maxRuntimeSeconds * 1000) {
        job.timedOut = true;
        LOG.warn("job ran out of time: stopping its process tree [job: {}, maxRuntimeSeconds: {}]", job.id,
          job.maxRuntimeSeconds);
        ProcessRunner.stopTree(job.handle);
        continue;
      }
      if (job.reattached) {
        continue; // its output no longer reaches the node, so silence says nothing
      }
      switch (StallDetector.check(job.status, job.lastOutputAtMs, job.stallTimeoutSeconds * 1000, now)) {
        case STALLED -> {
          job.status = JobStatus.STALLED;
          LOG.warn("job stalled: no output for {} s [job: {}]", (now - job.lastOutputAtMs) / 1000, job.id);
          bus.publishEvent(new JsonObject().put("type", "job.stalled").put("jobId", job.id).put("label", job.label)
            .put("principal", job.principal).put("silentForMs", now - job.lastOutputAtMs));
          save(job);
        }
        case RESUMED -> {
          job.status = JobStatus.RUNNING;
          LOG.info("stalled job produced output again [job: {}]", job.id);
          save(job);
        }
        default -> {
        }
      }
    }
  }

  /** Tells the hub about finished jobs it has not heard of (at completion, and again at each hello). */
  void reportFinished() {
    if (!bus.hubReachable()) {
      return;
    }
    for (Job job : jobs.values()) {
      if (job.status.isFinal() && !job.reported && bus.publishEvent(finishedEvent(job))) {
        job.reported = true;
        save(job);
      }
    }
  }

  private static JsonObject finishedEvent(Job job) {
    JsonObject view = job.view();
    return new JsonObject().put("type", "job.finished").put("jobId", job.id).put("label", job.label)
      .put("status", view.getString("status")).put("exitCode", job.exitCode).put("error", job.error)
      .put("principal", job.principal).put("startedAt", view.getString("startedAt"))
      .put("endedAt", view.getString("endedAt")).put("durationMs", view.getLong("durationMs"));
  }

  Job require(String id) {
    Job job = id == null ? null : jobs.get(id);
    if (job == null) {
      throw FailureCode.NOT_FOUND.exception("no job '" + id + "' on node " + bus.nodeId() + "; job_list shows the jobs");
    }
    return job;
  }

  /** The job's output log, opened on first use for jobs loaded from disk. */
  OutputLog logOf(Job job) throws IOException {
    if (job.log == null) {
      job.log = OutputLog.open(store.dir(job.id), logCapBytes);
    }
    return job.log;
  }

  private String stderrTail(Job job) {
    try {
      List<String> tail = job.log == null ? List.of() : job.log.tail("stderr", 5);
      return tail.isEmpty() ? "" : "; last stderr lines: " + String.join(" | ", tail);
    } catch (IOException e) {
      return "";
    }
  }

  void save(Job job) {
    try {
      store.save(job);
    } catch (IOException e) {
      LOG.error("job record not saved [job: {}, reason: {}]", job.id, e.getMessage());
      throw FailureCode.TOOL_FAILED.exception("cannot save job " + job.id + " on node " + bus.nodeId() + ": "
        + e.getMessage());
    }
  }
}
