package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.fleetbus.testsupport.Tmpfs;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 34, item 5: the hub's data folder (its SQLite file with the audit) on a small tmpfs, filled to ENOSPC while a
 * node serves tier-2 {@code run_script} calls (each writes a run marker). A call already running when it fills is
 * answered 200 (its entry goes into the room the hub's reserve file gives back). While the audit cannot be written no
 * tool runs on the node, the caller's 503 names the cause, {@code /ready} is unready; once the filler is removed the same
 * hub process serves again and {@code audit/verify} is ok (nothing unaudited). Real hub and node JVMs: only the hub's
 * folder is on the tmpfs (mounted by the test, which runs as root; skipped where mount is not permitted). Every check
 * is collected before the test fails, so one run on a hub without the fix shows each one failing.
 */
@Timeout(300)
@Tag("cluster")
class AuditDiskFullTest {
  private static final Duration DETECT = Duration.ofSeconds(5);
  private static final Duration RECOVER = Duration.ofSeconds(15);
  private static final int CALLS_WHILE_FULL = 12;

  private static TestFleet fleet;
  private static Path hubData;
  private static boolean mounted;
  private static FleetProcess hub;
  private static FleetProcess node;
  private static Path markers;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeAll
  static void fleetWithTheHubOnATmpfs() throws Exception {
    fleet = new TestFleet(1000);
    hubData = Files.createDirectories(fleet.dir.resolve("hub"));
    String refused = Tmpfs.mount(hubData, "24m");
    Assumptions.assumeTrue(refused == null, "AuditDiskFullTest needs to mount a tmpfs (root, CAP_SYS_ADMIN): " + refused);
    mounted = true;
    markers = Files.createDirectories(fleet.dir.resolve("markers"));
    fleet.hubConf(new JsonObject().put("tierOverrides", new JsonObject().put("run_script", 2))
      .put("audit", new JsonObject().put("probeMs", 200).put("minFreeMb", 4).put("reserveMb", 4)));
    hub = fleet.startHub();
    node = fleet.startNode("n1", "sudo");
    hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
  }

  @AfterAll
  static void unmount() throws Exception {
    if (fleet == null) {
      return;
    }
    fleet.close();
    if (mounted) {
      Tmpfs.unmount(hubData);
    }
    if (!Boolean.getBoolean("fleetbus.keepTestDirs")) {
      // the fleet removed what it could: the mount point was busy until now
      Files.deleteIfExists(hubData);
      Files.deleteIfExists(fleet.dir);
    }
  }

  @Test
  void nothingRunsWhileTheAuditCannotBeWrittenAndTheHubRecoversByItself() throws Exception {
    List<String> failed = new ArrayList<>();
    Response first = call("before", "");
    assertEquals(200, first.status(), "a call before the disk fills: " + first.body().encode());
    // a call that is running when the disk fills: its end is audited all the same (the reserve's room)
    int started = node.mark();
    CompletableFuture<Response> running = CompletableFuture.supplyAsync(() -> call("running", "sleep 2; "));
    node.awaitLine("privileged call started \\[call: [^,]+, tool: run_script", started, Duration.ofSeconds(20));

    long filledAt = System.nanoTime();
    int mark = hub.mark();
    long filled = Tmpfs.fill(hubData.resolve("filler"));
    boolean noticed = logged("audit unavailable", mark, DETECT);
    long detectMs = (System.nanoTime() - filledAt) / 1_000_000;
    Response unready = ready();
    if (!noticed || unready.status() != 503 || !unready.body().encode().contains("no space left on " + hubData)) {
      failed.add("/ready " + unready.status() + " " + (noticed ? "" : DETECT.toSeconds() + " s ") + "after the hub's folder"
        + " filled: " + unready.body().encode());
    }

    List<Integer> statuses = new ArrayList<>();
    String message = null;
    for (int i = 0; i < CALLS_WHILE_FULL; i++) {
      Response r = call("full-" + i, "");
      statuses.add(r.status());
      message = r.body().getJsonObject("error", new JsonObject()).getString("message", r.body().encode());
      if (r.status() != 503 || !message.startsWith("audit unavailable: no space left on " + hubData)) {
        failed.add("call " + i + " while full: " + r.status() + " " + message);
      }
    }
    Response ranThrough = running.get(30, TimeUnit.SECONDS);
    if (ranThrough.status() != 200) {
      failed.add("the call running when the disk filled: " + ranThrough.status() + " " + ranThrough.body().encode());
    }
    int ranWhileFull = count(markers, "full-");
    if (ranWhileFull != 0) {
      failed.add(ranWhileFull + " of " + CALLS_WHILE_FULL + " run_script calls ran on the node while the audit could"
        + " not be written");
    }

    mark = hub.mark();
    Files.delete(hubData.resolve("filler"));
    long freedAt = System.nanoTime();
    boolean recovered = logged("audit available again", mark, RECOVER);
    long recoverMs = (System.nanoTime() - freedAt) / 1_000_000;
    JsonObject verified = fleet.get("/api/v1/audit/verify").body();
    if (!recovered || ready().status() != 200 || !Boolean.TRUE.equals(verified.getBoolean("ok"))) {
      failed.add((recovered ? "" : "not recovered " + RECOVER.toSeconds() + " s after the space returned: ") + "/ready "
        + ready().status() + ", verify " + verified.encode());
    }
    Response after = call("after", "");
    if (after.status() != 200 || !Files.exists(markers.resolve("after"))) {
      failed.add("a call after the recovery: " + after.status() + " " + after.body().encode());
    }
    if (!hub.isAlive()) {
      failed.add("the hub process is gone");
    }
    assertEquals(List.of(), failed, "the disk filled with " + filled + " bytes");
    FaultReport.record("34. The hub's data folder full (tmpfs at ENOSPC), tier-2 run_script calls",
      "no tool runs while the audit cannot be written; 503 naming the cause; /ready unready; after freeing the same hub"
        + " serves again, audit/verify ok",
      "/ready unready " + detectMs + " ms after the fill; a call running then: " + ranThrough.status() + "; "
        + CALLS_WHILE_FULL + " calls: " + statuses + ", 0 ran; \""
        + message + "\"; after freeing: verify ok (" + verified.getLong("records") + " records, "
        + verified.getInteger("callsChecked") + " calls checked, unaudited " + verified.getJsonArray("unaudited", new JsonArray())
        + ") " + recoverMs + " ms later, no restart");
  }

  /** A tier-2 run_script on n1 that runs {@code first}, then leaves the marker {@code name}. */
  private static Response call(String name, String first) {
    String script = first + "echo ran > " + markers.resolve(name);
    return fleet.post("/api/v1/nodes/n1/tools/run_script", new JsonObject().put("script", script)
      .put("timeout_seconds", 10).encode());
  }

  /** {@code /ready} with its status (no token: it needs none). */
  private Response ready() {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.httpPort + "/ready"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      return new Response(r.statusCode(), r.body().isBlank() ? new JsonObject() : new JsonObject(r.body()));
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException("GET /ready: " + e, e);
    }
  }


  private static int count(Path dir, String prefix) throws IOException {
    try (var files = Files.list(dir)) {
      return (int) files.filter(f -> f.getFileName().toString().startsWith(prefix)).count();
    }
  }

  /** Whether the hub logs a line matching {@code regex} (after line {@code from}) within {@code timeout}. */
  private static boolean logged(String regex, int from, Duration timeout) {
    try {
      hub.awaitLine(regex, from, timeout);
      return true;
    } catch (AssertionError notSeen) {
      return false;
    }
  }

}
