package io.fleetbus.node.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.NodeBusFixture;
import io.fleetbus.node.TestClock;
import io.fleetbus.node.state.NodeBus;
import io.fleetbus.node.tools.CallControl;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.StreamChunk;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Jobs with real child processes, real output files and a local event bus for streams and events. */
@ExtendWith(VertxExtension.class)
@Timeout(60)
class JobManagerTest {
  @TempDir
  Path dir;
  private Vertx vertx;
  private NodeBus bus;
  private final BlockingQueue<JsonObject> events = new LinkedBlockingQueue<>();
  private final List<JobManager> opened = new ArrayList<>();
  private final List<Long> pidsToKill = new ArrayList<>();

  @BeforeEach
  void setUp(Vertx vertx) throws Exception {
    this.vertx = vertx;
    Codecs.register(vertx);
    bus = NodeBusFixture.attached("n1", vertx);
    vertx.eventBus().<JsonObject>consumer(Addresses.EVENTS, m -> events.add(m.body()))
      .completion().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  @AfterEach
  void tearDown() {
    opened.forEach(JobManager::close);
    pidsToKill.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
  }

  private JobManager open(Clock clock) throws Exception {
    JobManager jobs = JobManager.open(dir.resolve("jobs"), bus, clock, JobManager.DEFAULT_LOG_CAP_BYTES);
    opened.add(jobs);
    return jobs;
  }

  private static JsonObject args(String command) {
    return new JsonObject().put("command", command).put("stall_timeout_seconds", 600L).put("max_runtime_seconds", 0L);
  }

  private JsonObject launch(JobManager jobs, JsonObject args) throws Exception {
    JsonObject job = jobs.launch(args, CallControl.detached("call-" + System.nanoTime()), "alice");
    pidsToKill.add(job.getLong("pid"));
    return job;
  }

  /** Registers a listener on a call's stream and returns the queue its chunks arrive in. */
  private BlockingQueue<StreamChunk> listen(String callId) throws Exception {
    BlockingQueue<StreamChunk> chunks = new LinkedBlockingQueue<>();
    vertx.eventBus().<StreamChunk>consumer(Addresses.callStream(callId), m -> chunks.add(m.body()))
      .completion().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    return chunks;
  }

  /** Reads the stream until its text matches {@code regex}; returns the first group. */
  private static String awaitOutput(BlockingQueue<StreamChunk> chunks, String regex) throws InterruptedException {
    Pattern p = Pattern.compile(regex);
    StringBuilder seen = new StringBuilder();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      StreamChunk c = chunks.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (c == null) {
        throw new AssertionError("stream never showed /" + regex + "/; it showed: " + seen);
      }
      seen.append(c.data());
      Matcher m = p.matcher(seen);
      if (m.find()) {
        return m.groupCount() > 0 ? m.group(1) : m.group();
      }
    }
  }

  private JsonObject awaitEvent(String type) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      JsonObject e = events.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (e == null) {
        throw new AssertionError("no " + type + " event");
      }
      if (type.equals(e.getString("type"))) {
        return e;
      }
    }
  }

  private static JsonObject waitFor(JobManager jobs, String id, long timeoutMs) throws Exception {
    return jobs.await(id, timeoutMs, CallControl.detached("wait")).get(30, TimeUnit.SECONDS);
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @Test
  void jobCompletesAndItsOutputIsPagedInOrder() throws Exception {
    JobManager jobs = open(Clock.systemUTC());
    JsonObject launched = launch(jobs, args("echo one; echo two >&2; echo three").put("label", "demo"));
    assertEquals("running", launched.getString("status"));
    String id = launched.getString("jobId");

    JsonObject waited = waitFor(jobs, id, 20_000);
    assertEquals("completed", waited.getString("status"));
    assertTrue(waited.getBoolean("finished"));
    assertEquals(0, waited.getJsonObject("job").getInteger("exitCode"));

    JsonObject all = jobs.logs(id, 0, 50);
    assertEquals(3, all.getLong("total"));
    JsonArray lines = all.getJsonArray("lines");
    assertEquals("stdout", line(lines, "one").getString("stream"));
    assertEquals("stderr", line(lines, "two").getString("stream"));
    assertTrue(line(lines, "one").getLong("seq") < line(lines, "three").getLong("seq"), "stdout keeps its order");
    JsonObject second = jobs.logs(id, 1, 1);
    assertEquals(1, second.getJsonArray("lines").size());
    assertEquals(2, second.getLong("nextOffset"));
    assertEquals("demo", jobs.list(null, 20).getJsonArray("jobs").getJsonObject(0).getString("label"));
  }

  private static JsonObject line(JsonArray lines, String text) {
    return lines.stream().map(JsonObject.class::cast).filter(l -> text.equals(l.getString("text"))).findFirst()
      .orElseThrow(() -> new AssertionError("no line '" + text + "' in " + lines.encode()));
  }

  /** A job on a sudo node runs confined like run_script: its script reads and writes only in the scope. */
  @Test
  void jobsRunConfined() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(io.fleetbus.node.confine.Landlock.abi() > 0, "no Landlock on this kernel");
    Path scope = java.nio.file.Files.createDirectories(dir.resolve("scope"));
    Path outside = java.nio.file.Files.createDirectories(dir.resolve("outside"));
    java.nio.file.Files.writeString(outside.resolve("secret.txt"), "JOB-SECRET\n");
    io.fleetbus.node.settings.NodeSettings sudo = new io.fleetbus.node.settings.NodeSettings("n1", "i1", "sudo", new JsonObject(),
      dir.resolve("data"), 1000, List.of("echo", "cat"), 4096, 1000, io.fleetbus.node.settings.ToolSettings.fromConf(
        new JsonObject().put("paths", new JsonObject().put("allow", new io.vertx.core.json.JsonArray().add(scope.toString()))),
        dir.resolve("data")));
    JobManager jobs = JobManager.open(dir.resolve("data").resolve("jobs"), bus, Clock.systemUTC(),
      JobManager.DEFAULT_LOG_CAP_BYTES).confinedBy(io.fleetbus.node.confine.Confinement.of(sudo)
        .commandSpawner(() -> java.util.Set.of("echo", "cat")));
    opened.add(jobs);
    String id = launch(jobs, args("echo started; cat " + outside + "/secret.txt; echo x > " + outside + "/job-wrote; echo ok > "
      + scope + "/job-wrote")).getString("jobId");
    JsonObject waited = waitFor(jobs, id, 20_000);
    assertTrue(waited.getBoolean("finished"), waited.encode());
    String logs = jobs.logs(id, 0, 50).encode();
    assertTrue(logs.contains("started"), logs);
    assertTrue(!logs.contains("JOB-SECRET"), logs);
    assertTrue(!java.nio.file.Files.exists(outside.resolve("job-wrote")), "wrote outside the scope");
    assertTrue(java.nio.file.Files.exists(scope.resolve("job-wrote")), "inside the scope it writes");
  }

  @Test
  void failedJobCarriesItsExitCodeAndStderrTail() throws Exception {
    JobManager jobs = open(Clock.systemUTC());
    String id = launch(jobs, args("echo 'disk full' >&2; exit 4")).getString("jobId");
    JsonObject job = waitFor(jobs, id, 20_000).getJsonObject("job");
    assertEquals("failed", job.getString("status"));
    assertEquals(4, job.getInteger("exitCode"));
    assertTrue(job.getString("error").contains("disk full"), job.getString("error"));
  }

  @Test
  void jobThatPrintsThenGoesSilentIsMarkedStalledAndStreamsUntilItEnds() throws Exception {
    NodeBusFixture.hubAccepted(bus);
    TestClock clock = new TestClock(Instant.parse("2026-11-23T10:00:00Z"), ZoneOffset.UTC);
    JobManager jobs = open(clock);
    BlockingQueue<StreamChunk> chunks = listen("launch-1");
    CallControl call = CallControl.streaming("launch-1", vertx.eventBus());
    JsonObject launched = jobs.launch(args("echo hello; exec sleep 300").put("stall_timeout_seconds", 1L), call, "alice");
    pidsToKill.add(launched.getLong("pid"));
    call.finish(); // what the dispatcher does when job_launch returns: the stream must stay open
    awaitOutput(chunks, "hello");

    jobs.tick();
    assertEquals("running", jobs.status(launched.getString("jobId")).getString("status"), "not silent long enough yet");
    clock.advance(Duration.ofSeconds(2));
    jobs.tick();
    assertEquals("stalled", jobs.status(launched.getString("jobId")).getString("status"));
    assertEquals(launched.getString("jobId"), awaitEvent("job.stalled").getString("jobId"));

    JsonObject cancelled = jobs.cancel(launched.getString("jobId"), "bob");
    assertEquals("cancelled", cancelled.getJsonObject("job").getString("status"));
    StreamChunk last;
    do {
      last = chunks.poll(10, TimeUnit.SECONDS);
      assertNotNull(last, "the stream ends when the job ends");
    } while (!last.fin());
  }

  @Test
  void cancelKillsTheWholeTreeGrandchildrenIncluded() throws Exception {
    JobManager jobs = open(Clock.systemUTC());
    BlockingQueue<StreamChunk> chunks = listen("launch-2");
    JsonObject launched = jobs.launch(args("sh -c 'sleep 300 & echo grandchild=$!; wait' & wait"),
      CallControl.streaming("launch-2", vertx.eventBus()), "alice");
    pidsToKill.add(launched.getLong("pid"));
    long grandchild = Long.parseLong(awaitOutput(chunks, "grandchild=(\\d+)\\n"));
    pidsToKill.add(grandchild);
    assertTrue(alive(grandchild));
    ProcessHandle gc = ProcessHandle.of(grandchild).orElseThrow();
    assertEquals(launched.getLong("pid"), gc.parent().flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L),
      "it really is a grandchild of the job's process");

    JsonObject cancelled = jobs.cancel(launched.getString("jobId"), "bob");
    assertTrue(cancelled.getBoolean("cancelled"));
    assertEquals("cancelled", cancelled.getJsonObject("job").getString("status"));
    assertEquals("cancelled", cancelled.getString("status"), "the job's state at the top, as in every job answer");
    assertTrue(cancelled.getJsonObject("job").getString("error").contains("bob"));
    gc.onExit().get(5, TimeUnit.SECONDS);
    assertFalse(alive(grandchild), "no orphan left behind");
    assertFalse(alive(launched.getLong("pid")));
    assertEquals(FailureCode.CONFLICT, assertThrows(FleetException.class,
      () -> jobs.cancel(launched.getString("jobId"), "bob")).code());
  }

  @Test
  void jobPastItsMaxRuntimeIsStoppedAsTimedOut() throws Exception {
    TestClock clock = new TestClock(Instant.parse("2026-11-23T10:00:00Z"), ZoneOffset.UTC);
    JobManager jobs = open(clock);
    JsonObject launched = launch(jobs, args("exec sleep 300").put("max_runtime_seconds", 5L));
    clock.advance(Duration.ofSeconds(6));
    jobs.tick();
    JsonObject waited = waitFor(jobs, launched.getString("jobId"), 20_000);
    assertEquals("timed_out", waited.getString("status"));
    assertTrue(waited.getBoolean("finished"));
    assertFalse(waited.getBoolean("waitTimedOut"), "the job timed out, not the wait");
    assertFalse(alive(launched.getLong("pid")));
  }

  @Test
  void waitThatRunsOutAnswersTimedOutAndTheJobGoesOn() throws Exception {
    JobManager jobs = open(Clock.systemUTC());
    JsonObject launched = launch(jobs, args("exec sleep 300"));
    long t0 = System.nanoTime();
    JsonObject waited = waitFor(jobs, launched.getString("jobId"), 300);
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertEquals("running", waited.getString("status"), "the job's state, as every job tool answers it");
    assertFalse(waited.getBoolean("finished"));
    assertTrue(waited.getBoolean("waitTimedOut"));
    assertEquals("running", waited.getJsonObject("job").getString("status"), "kept for older clients");
    assertTrue(tookMs >= 300 && tookMs < 5000, "waited " + tookMs + " ms");
    assertTrue(alive(launched.getLong("pid")));
    assertEquals(FailureCode.CONFLICT, assertThrows(FleetException.class,
      () -> jobs.remove(launched.getString("jobId"))).code(), "a running job cannot be removed");
  }

  @Test
  void waitHoldsNoThreadAndEndsWhenTheJobDoes() throws Exception {
    JobManager jobs = open(Clock.systemUTC());
    String id = launch(jobs, args("exec sleep 300")).getString("jobId");
    CompletableFuture<JsonObject> waiting = jobs.await(id, 60_000, CallControl.detached("wait-1"));
    assertFalse(waiting.isDone(), "the caller got a future back at once");
    CallControl cancelledCall = CallControl.detached("wait-2");
    CompletableFuture<JsonObject> abandoned = jobs.await(id, 60_000, cancelledCall);
    cancelledCall.cancel("carol");
    assertThrows(ExecutionException.class, () -> abandoned.get(5, TimeUnit.SECONDS), "a cancelled wait ends at once");

    jobs.cancel(id, "bob");
    JsonObject answer = waiting.get(10, TimeUnit.SECONDS);
    assertEquals("cancelled", answer.getString("status"));
    assertTrue(answer.getBoolean("finished"));
  }

  @Test
  void nodeRestartKeepsFinishedResultsAndSettlesInterruptedJobs() throws Exception {
    JobManager first = open(Clock.systemUTC());
    String done = launch(first, args("echo kept")).getString("jobId");
    waitFor(first, done, 20_000);
    JsonObject survivor = launch(first, args("exec sleep 300"));
    JsonObject victim = launch(first, args("exec sleep 300"));
    first.close();
    ProcessHandle gone = ProcessHandle.of(victim.getLong("pid")).orElseThrow();
    gone.destroyForcibly();
    gone.onExit().get(5, TimeUnit.SECONDS);

    JobManager second = open(Clock.systemUTC());
    JsonObject kept = second.status(done);
    assertEquals("completed", kept.getString("status"));
    assertEquals(0, kept.getInteger("exitCode"));
    assertEquals("kept", second.logs(done, 0, 10).getJsonArray("lines").getJsonObject(0).getString("text"));

    JsonObject failed = second.status(victim.getString("jobId"));
    assertEquals("failed", failed.getString("status"));
    assertTrue(failed.getString("error").contains("node restarted"), failed.getString("error"));

    JsonObject reattached = second.status(survivor.getString("jobId"));
    assertEquals("running", reattached.getString("status"));
    assertTrue(reattached.getBoolean("reattached"));
    assertEquals(survivor.getLong("pid"), reattached.getLong("pid"));
    JsonObject cancelled = second.cancel(survivor.getString("jobId"), "bob");
    assertEquals("cancelled", cancelled.getJsonObject("job").getString("status"));
    assertFalse(alive(survivor.getLong("pid")));

    assertEquals(FailureCode.NOT_FOUND, assertThrows(FleetException.class, () -> second.status("no-such-job")).code());
    assertTrue(second.remove(done).getBoolean("removed"));
    assertFalse(Files.exists(dir.resolve("jobs").resolve(done)), "record and output are gone");
  }

  @Test
  void completionIsReportedOnceAHubAcceptsTheNode() throws Exception {
    JobManager jobs = open(Clock.systemUTC());
    String id = launch(jobs, args("true")).getString("jobId");
    waitFor(jobs, id, 20_000);
    Path record = dir.resolve("jobs").resolve(id).resolve("job.json");
    assertFalse(new JsonObject(Files.readString(record)).getBoolean("reported"), "no hub yet: kept for later");

    NodeBusFixture.hubAccepted(bus);
    JsonObject event = awaitEvent("job.finished");
    assertEquals(id, event.getString("jobId"));
    assertEquals("completed", event.getString("status"));
    assertEquals("n1", event.getString("nodeId"));
    jobs.status(id); // the report was written on the owner thread before this call ran
    assertTrue(new JsonObject(Files.readString(record)).getBoolean("reported"));

    NodeBusFixture.hubAccepted(bus);
    jobs.status(id);
    assertTrue(events.stream().noneMatch(e -> "job.finished".equals(e.getString("type"))), "reported only once");
  }
}
