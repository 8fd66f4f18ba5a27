package io.fleetbus.node.jobs;

import io.fleetbus.node.state.NodeBus;
import io.fleetbus.node.tools.CallControl;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's jobs as the tools see them: launch, status, list, logs, wait, cancel, remove. Lives as
 * long as the node, across cluster rejoins; the jobs' records and output stay in its data folder.
 */
public final class JobManager implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JobManager.class);
  private static final long TICK_MS = 1000;
  public static final long DEFAULT_LOG_CAP_BYTES = 2L * 1024 * 1024;
  /** Killing a tree takes at most the SIGTERM grace; the pipes then drain. */
  private static final long CANCEL_SETTLE_MS = 10_000;

  private final JobSupervisor supervisor;

  private JobManager(JobSupervisor supervisor) {
    this.supervisor = supervisor;
  }

  /** Loads the jobs in {@code dir}, settles those a node restart interrupted, and starts watching. */
  public static JobManager open(Path dir, NodeBus bus, Clock clock, long logCapBytes) throws Exception {
    JobSupervisor supervisor = new JobSupervisor(new JobStore(dir), bus, clock, logCapBytes);
    supervisor.owner.call(() -> {
      supervisor.recover();
      return null;
    });
    supervisor.owner.every(TICK_MS, supervisor::tick);
    bus.onHubReachable(() -> supervisor.owner.execute(supervisor::reportFinished));
    return new JobManager(supervisor);
  }

  /** Jobs start from {@code spawner} from now on (the node's confinement; see Confinement#commandSpawner). */
  public JobManager confinedBy(io.fleetbus.node.confine.Spawner spawner) {
    supervisor.spawner(spawner);
    return this;
  }

  /** Starts a job and returns at once; its output streams through {@code control} while the call's listeners last. */
  public JsonObject launch(JsonObject args, CallControl control, String principal) throws Exception {
    JobRequest req = JobRequest.fromArgs(args);
    return supervisor.owner.call(() -> supervisor.launch(req, control, principal, control.callId()).view());
  }

  /** The checks launch makes on its arguments, nothing started (the hub's dry check before a person approves). */
  public void checkLaunch(JsonObject args) {
    JobRequest.fromArgs(args);
  }

  public JsonObject status(String jobId) throws Exception {
    return supervisor.owner.call(() -> supervisor.require(jobId).view());
  }

  public JsonObject list(String status, int limit) throws Exception {
    return supervisor.owner.call(() -> {
      List<Job> matching = supervisor.jobs.values().stream()
        .filter(j -> status == null || j.status.json().equals(status))
        .sorted(Comparator.comparingLong((Job j) -> j.createdAtMs).reversed())
        .toList();
      JsonArray page = new JsonArray();
      matching.stream().limit(limit).forEach(j -> page.add(j.view()));
      return new JsonObject().put("jobs", page).put("count", page.size()).put("total", matching.size());
    });
  }

  public JsonObject logs(String jobId, long offset, int limit) throws Exception {
    return supervisor.owner.call(() -> {
      Job job = supervisor.require(jobId);
      return supervisor.logOf(job).page(offset, limit).put("jobId", jobId).put("status", job.status.json())
        .put("principal", job.principal);
    });
  }

  /**
   * Answers when the job ends or {@code timeoutMs} pass, whichever is first, from the job's
   * completion signal: no polling, and no thread held while waiting. {@code status} is the job's state, as in every
   * job tool's answer; a wait that runs out answers {@code finished: false, waitTimedOut: true} with the job as it is
   * then (the job goes on; its own {@code timed_out} means it ran past max_runtime_seconds).
   */
  public CompletableFuture<JsonObject> await(String jobId, long timeoutMs, CallControl control) throws Exception {
    CompletableFuture<JsonObject> done = supervisor.owner.call(() -> supervisor.require(jobId).done);
    long started = System.nanoTime();
    CompletableFuture<JsonObject> answer = done
      .thenApply(job -> waitAnswer(jobId, true, started, job))
      .completeOnTimeout(null, timeoutMs, TimeUnit.MILLISECONDS)
      .thenCompose(finished -> finished != null ? CompletableFuture.completedFuture(finished)
        : supervisor.owner.supply(() -> waitAnswer(jobId, false, started, supervisor.require(jobId).view())));
    control.onCancel(() -> answer.completeExceptionally(FailureCode.TOOL_FAILED.exception("cancelled: the wait for job "
      + jobId + " was cancelled; the job goes on")));
    return answer;
  }

  private static JsonObject waitAnswer(String jobId, boolean finished, long startedNanos, JsonObject job) {
    return new JsonObject().put("jobId", jobId).put("status", job.getString("status")).put("finished", finished)
      .put("waitTimedOut", !finished).put("waitedMs", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos))
      .put("job", job);
  }

  private record Target(Job job, ProcessHandle handle) {
  }

  /** Kills the job's whole process tree (on the caller's thread) and answers once the job has ended. */
  public JsonObject cancel(String jobId, String by) throws Exception {
    Target target = supervisor.owner.call(() -> {
      Job job = supervisor.require(jobId);
      if (job.status.isFinal()) {
        throw FailureCode.CONFLICT.exception("job " + jobId + " already ended (" + job.status.json() + ")");
      }
      job.cancelledBy = by;
      if (job.handle == null) {
        supervisor.finish(job, JobStatus.CANCELLED, null, "cancelled by " + by);
      }
      return new Target(job, job.handle);
    });
    if (target.handle() != null) {
      LOG.info("cancelling job: stopping its process tree [job: {}, pid: {}, by: {}]", jobId, target.handle().pid(), by);
      ProcessRunner.stopTree(target.handle());
    }
    try {
      JsonObject view = target.job().done.get(CANCEL_SETTLE_MS, TimeUnit.MILLISECONDS);
      return new JsonObject().put("jobId", jobId).put("status", view.getString("status")).put("cancelled", true)
        .put("job", view);
    } catch (TimeoutException e) {
      throw FailureCode.TOOL_FAILED.exception("job " + jobId + " was signalled but has not ended within "
        + CANCEL_SETTLE_MS + " ms; job_status shows how it goes on");
    }
  }

  public JsonObject remove(String jobId) throws Exception {
    return supervisor.owner.call(() -> {
      Job job = supervisor.require(jobId);
      if (!job.status.isFinal()) {
        throw FailureCode.CONFLICT.exception("job " + jobId + " is still " + job.status.json() + "; job_cancel it first");
      }
      supervisor.jobs.remove(jobId);
      if (job.log != null) {
        job.log.close();
      }
      supervisor.store.delete(jobId);
      LOG.info("job removed [job: {}]", jobId);
      return new JsonObject().put("jobId", jobId).put("removed", true);
    });
  }

  /** Runs the stall and run-time checks for the clock's current time now (tests drive the clock). */
  public void tick() throws Exception {
    supervisor.owner.call(() -> {
      supervisor.tick();
      return null;
    });
  }

  /** Stops watching; running jobs' processes are left alone (a restarted node re-attaches them). */
  @Override
  public void close() {
    supervisor.owner.close();
  }
}
