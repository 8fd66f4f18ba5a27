package io.fleetbus.node.jobs;

import io.fleetbus.node.state.ProcessRef;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One job: its record (saved after every change, so it survives a node restart) and, while it
 * runs, its process and output. Confined to the job supervisor's owner thread, except
 * {@link #lastOutputAtMs}, which the output pumps write.
 */
final class Job {
  final String id;
  final String label;
  final String command;
  final String interpreter;
  final String cwd;
  final List<String> envNames;
  final String principal;
  final String callId;
  final long stallTimeoutSeconds;
  final long maxRuntimeSeconds;
  final long createdAtMs;

  JobStatus status = JobStatus.PENDING;
  long startedAtMs;
  long endedAtMs;
  ProcessRef ref;
  Integer exitCode;
  String error;
  /** Re-attached by pid after a node restart: its output and exit code are out of reach. */
  boolean reattached;
  /** The hub has been told that it finished. */
  boolean reported;

  ProcessHandle handle;
  OutputLog log;
  JobStream stream = JobStream.NONE;
  volatile long lastOutputAtMs;
  String cancelledBy;
  boolean timedOut;
  /** Completes with the final view once the job has finished (job_wait waits on it). */
  final CompletableFuture<JsonObject> done = new CompletableFuture<>();

  Job(String id, JobRequest req, String principal, String callId, long createdAtMs) {
    this(id, req.label(), req.summary(), req.interpreter(), req.cwd(), List.copyOf(req.env().keySet()), principal,
      callId, req.stallTimeoutSeconds(), req.maxRuntimeSeconds(), createdAtMs);
  }

  private Job(String id, String label, String command, String interpreter, String cwd, List<String> envNames,
              String principal, String callId, long stallTimeoutSeconds, long maxRuntimeSeconds, long createdAtMs) {
    this.id = id;
    this.label = label;
    this.command = command;
    this.interpreter = interpreter;
    this.cwd = cwd;
    this.envNames = envNames;
    this.principal = principal;
    this.callId = callId;
    this.stallTimeoutSeconds = stallTimeoutSeconds;
    this.maxRuntimeSeconds = maxRuntimeSeconds;
    this.createdAtMs = createdAtMs;
  }

  /** What the job tools show. */
  JsonObject view() {
    JsonObject v = new JsonObject()
      .put("jobId", id)
      .put("status", status.json())
      .put("label", label)
      .put("command", command)
      .put("interpreter", interpreter)
      .put("cwd", cwd)
      .put("envNames", new JsonArray(envNames))
      .put("principal", principal)
      .put("callId", callId)
      .put("createdAt", time(createdAtMs))
      .put("startedAt", time(startedAtMs))
      .put("endedAt", time(endedAtMs))
      .put("durationMs", startedAtMs == 0 ? null : (endedAtMs == 0 ? lastKnownMs() : endedAtMs) - startedAtMs)
      .put("pid", ref == null ? null : ref.pid())
      .put("exitCode", exitCode)
      .put("error", error)
      .put("stallTimeoutSeconds", stallTimeoutSeconds)
      .put("maxRuntimeSeconds", maxRuntimeSeconds)
      .put("reattached", reattached);
    if (!status.isFinal() && lastOutputAtMs > 0) {
      v.put("lastOutputAt", time(lastOutputAtMs));
    }
    if (log != null) {
      v.put("outputLines", log.lineCount());
    }
    return v;
  }

  private long lastKnownMs() {
    return Math.max(lastOutputAtMs, startedAtMs);
  }

  private static String time(long ms) {
    return ms == 0 ? null : Instant.ofEpochMilli(ms).toString();
  }

  /** The record saved in the job's folder. */
  JsonObject toJson() {
    JsonObject j = new JsonObject()
      .put("id", id).put("label", label).put("command", command).put("interpreter", interpreter).put("cwd", cwd)
      .put("envNames", new JsonArray(envNames)).put("principal", principal).put("callId", callId)
      .put("stallTimeoutSeconds", stallTimeoutSeconds).put("maxRuntimeSeconds", maxRuntimeSeconds)
      .put("createdAtMs", createdAtMs).put("status", status.json()).put("startedAtMs", startedAtMs)
      .put("endedAtMs", endedAtMs).put("exitCode", exitCode).put("error", error).put("reattached", reattached)
      .put("reported", reported).put("lastOutputAtMs", lastOutputAtMs);
    if (ref != null) {
      j.put("process", ref.toJson());
    }
    return j;
  }

  @SuppressWarnings("unchecked")
  static Job fromJson(JsonObject j) {
    Job job = new Job(j.getString("id"), j.getString("label"), j.getString("command"), j.getString("interpreter"),
      j.getString("cwd"), List.copyOf((List<String>) (List<?>) j.getJsonArray("envNames", new JsonArray()).getList()),
      j.getString("principal"), j.getString("callId"), j.getLong("stallTimeoutSeconds", 600L),
      j.getLong("maxRuntimeSeconds", 0L), j.getLong("createdAtMs", 0L));
    job.status = JobStatus.parse(j.getString("status", "failed"));
    job.startedAtMs = j.getLong("startedAtMs", 0L);
    job.endedAtMs = j.getLong("endedAtMs", 0L);
    job.exitCode = j.getInteger("exitCode");
    job.error = j.getString("error");
    job.reattached = j.getBoolean("reattached", false);
    job.reported = j.getBoolean("reported", false);
    job.lastOutputAtMs = j.getLong("lastOutputAtMs", 0L);
    job.ref = ProcessRef.fromJson(j.getJsonObject("process"));
    if (job.status.isFinal()) {
      job.done.complete(job.view());
    }
    return job;
  }
}
