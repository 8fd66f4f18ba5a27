package io.fleetbus.hub.cli;

import io.fleetbus.hub.cli.Text.Table;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How {@code fleetbus jobs} prints the job tools' answers: six columns, not the job's twenty fields (issue 33), times in
 * the reader's zone with how long ago (the node answers UTC instants), output as the text it was.
 */
final class JobViews {
  /** The width of the WHAT column (label, else the command's first line). */
  static final int WHAT = 40;

  private JobViews() {
  }

  static void list(PrintWriter out, Text text, JsonObject data) {
    List<JsonObject> jobs = data.getJsonArray("jobs", new JsonArray()).stream().map(JsonObject.class::cast).toList();
    if (jobs.isEmpty()) {
      out.println("No jobs on this node" + (data.getInteger("total", 0) > 0 ? " in that state." : "."));
      return;
    }
    Table t = new Table("job", "status", "started", "ran", "exit", "what");
    for (JsonObject j : jobs) {
      Long started = epochMs(j.getString("startedAt"));
      t.row(j.getString("jobId"), j.getString("status"), text.when(started != null ? started : epochMs(j.getString("createdAt"))),
        duration(j.getLong("durationMs")), Text.orDash(j.getValue("exitCode")), Text.cut(what(j), WHAT));
    }
    t.print(out);
    int total = data.getInteger("total", jobs.size());
    out.println(jobs.size() + (total > jobs.size() ? " of " + total : "") + " job" + (total == 1 ? "" : "s")
      + ", newest first (fleetbus jobs logs NODE JOB shows one's output)");
  }

  static void logs(PrintWriter out, Text text, JsonObject data, String node) {
    JsonArray lines = data.getJsonArray("lines", new JsonArray());
    for (Object o : lines) {
      JsonObject line = (JsonObject) o;
      out.println(("stderr".equals(line.getString("stream")) ? "err| " : "") + line.getString("text", ""));
    }
    long next = data.getLong("nextOffset", 0L);
    long total = data.getLong("total", 0L);
    long first = data.getLong("firstAvailable", 0L);
    String more = next < total ? "; more: fleetbus jobs logs " + node + " " + data.getString("jobId") + " --offset " + next
      : "; that is all so far";
    out.println("-- job " + data.getString("jobId") + " " + data.getString("status") + ", lines " + (lines.isEmpty() ? "none"
      : lines.getJsonObject(0).getLong("seq") + "-" + (next - 1)) + " of " + total
      + (first > 0 ? " (the first " + first + " were dropped by the output cap)" : "") + more);
  }

  static void cancelled(PrintWriter out, Text text, JsonObject data) {
    JsonObject job = data.getJsonObject("job", new JsonObject());
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("job", data.getString("jobId"));
    f.put("status", Text.orDash(data.getString("status", job.getString("status"))));
    f.put("ended", text.when(epochMs(job.getString("endedAt"))));
    f.put("ran", duration(job.getLong("durationMs")));
    f.put("exit", Text.orDash(job.getValue("exitCode")));
    Text.fields(out, f);
  }

  private static String what(JsonObject j) {
    String label = j.getString("label");
    return label != null && !label.isBlank() ? label : Text.orDash(j.getString("command"));
  }

  /** "850 ms", "42 s", "3 min 5 s", "2 h 10 min"; "—" for none. */
  static String duration(Long ms) {
    if (ms == null) {
      return "—";
    }
    if (ms < 1000) {
      return ms + " ms";
    }
    long s = ms / 1000;
    if (s < 60) {
      return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
    return s < 3600 ? s / 60 + " min " + s % 60 + " s" : Text.uptime(s);
  }

  /** An ISO-8601 instant (what the node answers) as epoch ms; null for none or one that does not parse. */
  static Long epochMs(String iso) {
    if (iso == null) {
      return null;
    }
    try {
      return Instant.parse(iso).toEpochMilli();
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
