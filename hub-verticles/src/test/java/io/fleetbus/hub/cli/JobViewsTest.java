package io.fleetbus.hub.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** fleetbus jobs prints a few columns with local times, not job_list's twenty fields in UTC (issue 33). */
class JobViewsTest {
  private static final long NOW = Instant.parse("2026-11-27T18:10:00Z").toEpochMilli();
  private final Text berlin = new Text(ZoneId.of("Europe/Berlin"), NOW);

  private static JsonObject job(String id, String status, String startedAt, Long durationMs, Integer exit, String label) {
    return new JsonObject().put("jobId", id).put("status", status).put("label", label).put("command", "make -j4 all\nmore")
      .put("interpreter", "sh").put("cwd", "/srv").put("envNames", new JsonArray()).put("principal", "alice")
      .put("callId", "c-1").put("createdAt", startedAt).put("startedAt", startedAt).put("endedAt", null)
      .put("durationMs", durationMs).put("pid", 4242).put("exitCode", exit).put("error", null)
      .put("stallTimeoutSeconds", 600).put("maxRuntimeSeconds", 0).put("reattached", false).put("outputLines", 12);
  }

  private static String draw(CliCommands.View view, Text text, JsonObject data) {
    StringWriter s = new StringWriter();
    try (PrintWriter out = new PrintWriter(s)) {
      view.draw(out, text, data);
    }
    return s.toString();
  }

  @Test
  void theListHasSixColumnsAndLocalTimes() {
    JsonObject data = new JsonObject().put("jobs", new JsonArray()
        .add(job("j-2", "running", "2026-11-27T18:05:00Z", 300_000L, null, null))
        .add(job("j-1", "completed", "2026-11-27T16:00:00Z", 4_250L, 0, "nightly backup")))
      .put("count", 2).put("total", 3);
    List<String> lines = draw(JobViews::list, berlin, data).lines().toList();
    assertEquals(List.of("JOB", "STATUS", "STARTED", "RAN", "EXIT", "WHAT"), cells(lines.get(0)));
    assertEquals(List.of("j-2", "running", "2026-11-27 19:05:00 (5 min ago)", "5 min 0 s", "—", "make -j4 all …"),
      cells(lines.get(1)));
    assertEquals(List.of("j-1", "completed", "2026-11-27 17:00:00 (2 h ago)", "4.3 s", "0", "nightly backup"),
      cells(lines.get(2)));
    assertEquals(lines.get(0).indexOf("STARTED"), lines.get(2).indexOf("2026"), "aligned columns");
    assertEquals("2 of 3 jobs, newest first (fleetbus jobs logs NODE JOB shows one's output)", lines.get(3));
    assertTrue(lines.stream().noneMatch(l -> l.contains("T18:")), "no UTC instants");
  }

  /** A table row's cells: columns are two or more spaces apart. */
  private static List<String> cells(String line) {
    return List.of(line.split(" {2,}"));
  }

  @Test
  void anEmptyListSaysSo() {
    assertEquals("No jobs on this node.\n", draw(JobViews::list, berlin, new JsonObject().put("jobs", new JsonArray())
      .put("total", 0)).replace("\r", ""));
  }

  @Test
  void logsAreTheTextWithStderrMarkedAndHowToReadOn() {
    JsonObject data = new JsonObject().put("jobId", "j-1").put("status", "running").put("total", 10)
      .put("firstAvailable", 0).put("nextOffset", 2).put("lines", new JsonArray()
        .add(new JsonObject().put("seq", 0).put("stream", "stdout").put("text", "compiling"))
        .add(new JsonObject().put("seq", 1).put("stream", "stderr").put("text", "warning: x")));
    String out = draw((o, t, d) -> JobViews.logs(o, t, d, "web-1"), berlin, data);
    assertEquals("compiling\nerr| warning: x\n-- job j-1 running, lines 0-1 of 10; more: fleetbus jobs logs web-1 j-1"
      + " --offset 2\n", out.replace("\r", ""));
  }

  @Test
  void aCancelledJobShowsItsEnd() {
    JsonObject data = new JsonObject().put("jobId", "j-3").put("status", "cancelled").put("cancelled", true)
      .put("job", job("j-3", "cancelled", "2026-11-27T18:09:00Z", 61_000L, 143, null)
        .put("endedAt", "2026-11-27T18:09:59Z"));
    String out = draw(JobViews::cancelled, berlin, data).replace("\r", "");
    assertEquals("job     j-3\nstatus  cancelled\nended   2026-11-27 19:09:59 (just now)\nran     1 min 1 s\nexit    143\n",
      out);
  }
}
