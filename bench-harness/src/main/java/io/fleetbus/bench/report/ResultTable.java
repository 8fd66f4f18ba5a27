package io.fleetbus.bench.report;

import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Renders a run's results JSON as Markdown tables (the same text goes to the terminal and into docs/performance.md). */
public final class ResultTable {
  private ResultTable() {
  }

  public static String render(JsonObject results) {
    JsonObject m = results.getJsonObject("machine");
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "fleetbus benchmark (%s, %.0f s): %d cores, %s, %s, %s%n",
      results.getString("mode"), results.getDouble("durationSeconds"), m.getInteger("cores"), m.getString("jdk"),
      m.getString("os"), m.getString("cpu")));
    out.append("command: ").append(results.getString("command")).append('\n');
    JsonObject phases = results.getJsonObject("phaseSeconds");
    if (phases != null && !phases.isEmpty()) {
      out.append("phases (wall s): ").append(String.join(", ", phases.stream()
        .map(e -> e.getKey() + " " + e.getValue()).toList())).append('\n');
    }
    out.append("caveat: ").append(results.getString("caveat")).append("\n\n");

    List<JsonObject> rows = results.getJsonArray("rows").stream().map(o -> (JsonObject) o).toList();
    out.append("| what | p50 ms | p99 ms | calls/s | p50 ÷ floor p50 | p50 ÷ durable floor p50 | calls/s ÷ floor calls/s"
      + " | warm-up / timed | note |\n");
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (JsonObject r : rows) {
      if (r.getDouble("p50Ms") != null || !r.containsKey("figures")) {
        out.append(cells(r.getString("what"), ms(r.getDouble("p50Ms")), ms(r.getDouble("p99Ms")),
          num(r.getDouble("perSecond"), "%.0f"), num(r.getDouble("p50VsFloor"), "%.1f×"),
          num(r.getDouble("p50VsDurableFloor"), "%.2f×"), percent(r.getDouble("throughputVsFloor")),
          r.getDouble("p50Ms") == null ? "" : r.getLong("warmup") + " / " + r.getLong("samples"),
          statusNote(r)));
      }
    }

    out.append("\nratios: p50 ÷ the floor's 1-in-flight p50 (and ÷ the durable floor's: the floor + one committed SQLite"
      + " record); calls/s ÷ the floor's calls/s at its highest concurrency. Warm-up calls are not timed.\n");
    floors(out, results.getJsonObject("floors"));
    stages(out, rows);
    out.append("\n| heartbeat scale | hub CPU (% of one core) | hub heap after GC | heartbeats/s | hub sees online / fresh"
      + " | offline after last beat (config) | step's new nodes enrolled in | all nodes' hellos again (storm) |\n");
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (JsonObject r : rows) {
      JsonObject f = r.getJsonObject("figures");
      if (f != null && f.containsKey("nodes")) {
        out.append(cells(r.getString("what"), num(f.getDouble("hubCpuPercentOfOneCore"), "%.1f %%")
            + num(f.getDouble("hubIdleCpuPercentOfOneCore"), " (idle, no node: %.1f %%)"),
          num(f.getDouble("hubHeapAfterGcMiB"), "%.1f MiB"), num(f.getDouble("heartbeatsPerSecond"), "%.0f"),
          f.getInteger("hubSeesOnline") + " / " + f.getInteger("hubSeesFresh") + " of " + f.getInteger("nodes"),
          String.format(Locale.ROOT, "%.1f s (%.0f s)", f.getLong("offlineAfterLastBeatMs") / 1000.0,
            f.getLong("offlineConfiguredMs") / 1000.0),
          num(f.getDouble("registerSeconds"), "%.1f s"), num(f.getDouble("helloStormSeconds"), "%.1f s")));
      }
    }

    membership(out, rows);

    out.append("\n| footprint | idle RSS | RSS after the load above |\n|---|---:|---:|\n");
    for (JsonObject r : rows) {
      JsonObject f = r.getJsonObject("figures");
      if (f != null && f.containsKey("idleMiB")) {
        out.append(cells(r.getString("what"), num(f.getDouble("idleMiB"), "%.0f MiB"),
          num(f.getDouble("afterLoadMiB"), "%.0f MiB")));
      }
    }

    out.append("\n| target | this run | met |\n|---|---|---|\n");
    results.getJsonArray("targets").stream().map(o -> (JsonObject) o).forEach(t -> out.append(cells(t.getString("target"),
      t.getString("shown"), t.getBoolean("met") == null ? "—" : t.getBoolean("met") ? "yes" : "**no**")));
    return out.toString();
  }

  /** Where the 1-in-flight HTTP call's time goes, stage by stage, and the CPU a call costs hub and node under load. */
  private static void stages(StringBuilder out, List<JsonObject> rows) {
    Double floor = rows.stream().filter(r -> "floor_latency".equals(r.getString("id"))).findFirst()
      .map(r -> r.getDouble("p50Ms")).orElse(null);
    for (JsonObject r : rows) {
      JsonObject f = r.getJsonObject("figures");
      if (f != null && f.containsKey("stages")) {
        out.append("\n| ").append(r.getString("what")).append(" | p50 ms | p99 ms | p50 ÷ floor p50 |\n|---|---:|---:|---:|\n");
        double sum = 0;
        for (Object o : f.getJsonArray("stages")) {
          JsonObject st = (JsonObject) o;
          double p50 = st.getDouble("p50Ms");
          sum += p50;
          out.append(cells(st.getString("label"), ms(p50), ms(st.getDouble("p99Ms")),
            floor == null ? "" : num(p50 / floor, "%.2f×")));
        }
        out.append(cells("sum of the stage p50s", ms(sum), "", floor == null ? "" : num(sum / floor, "%.1f×")));
      }
      if (f != null && f.containsKey("hubCpuMsPerCall")) {
        out.append("\n| ").append(r.getString("what")).append(" | hub CPU ms / call | node CPU ms / call"
          + " | hub % of a core | node % of a core |\n|---|---:|---:|---:|---:|\n");
        out.append(cells(f.getLong("calls") + " timed calls", num(f.getDouble("hubCpuMsPerCall"), "%.3f"),
          num(f.getDouble("nodeCpuMsPerCall"), "%.3f"), num(f.getDouble("hubCpuPercentOfOneCore"), "%.0f %%"),
          num(f.getDouble("nodeCpuPercentOfOneCore"), "%.0f %%")));
      }
    }
  }

  /** Issue 38: the two floors and the raw fsync; 1-in-flight latency against both, throughput against the floor. */
  private static void floors(StringBuilder out, JsonObject f) {
    if (f == null || f.getDouble("durableFloorP50Ms") == null) {
      return;
    }
    out.append("\n| against both floors (issue 38) | p50 ms | ÷ floor | ÷ durable floor (judges 1-in-flight latency) |\n")
      .append("|---|---:|---:|---:|\n");
    out.append(cells("floor / durable floor / raw fsync of its folder", ms(f.getDouble("floorP50Ms")) + " / "
      + ms(f.getDouble("durableFloorP50Ms")) + " / " + ms(f.getDouble("rawFsyncP50Ms")), "", ""));
    out.append(cells("durable floor − floor (the replier's own insert + commit: "
        + ms(f.getDouble("replierCommitP50Ms")) + ")", ms(f.getDouble("durableMinusFloorP50Ms")),
      num(f.getDouble("durableExtraVsRawFsync"), "%.2f× the raw fsync"), ""));
    out.append(cells("the floor + one raw fsync on the replier's loop (the fsync adds "
        + ms(f.getDouble("fsyncAddsToRequestP50Ms")) + "; its thread's wake-up after blocking: "
        + ms(f.getDouble("afterBlockingP50Ms")) + ")", ms(f.getDouble("fsyncRequestP50Ms")),
      num(f.getDouble("durableExtraVsFsyncRequest"), "durable − floor = %.2f× what it adds"), ""));
    out.append(cells("SQLite's own work in the commit (the replier's commit − the raw fsync)",
      ms(f.getDouble("sqliteOwnP50Ms")), "", ""));
    out.append(cells("the durable floor's calls less their own commit (compare the floor)",
      ms(f.getDouble("outsideCommitP50Ms")), "", ""));
    out.append(cells("a thread hop to a worker and back (durable floor on a worker − durable floor)",
      ms(f.getDouble("threadHopP50Ms")), "", ""));
    for (Object o : f.getJsonArray("latency")) {
      JsonObject r = (JsonObject) o;
      out.append(cells(r.getString("what"), ms(r.getDouble("p50Ms")), num(r.getDouble("vsFloor"), "%.2f×"),
        num(r.getDouble("vsDurableFloor"), "%.2f×")));
    }
    JsonObject audit = f.getJsonObject("auditCommit");
    if (audit != null) {
      out.append(cells("the HTTP call's audit-commit stage", ms(audit.getDouble("p50Ms")), "",
        num(audit.getDouble("vsRawFsync"), "%.2f× the raw fsync")));
    }
    for (Object o : f.getJsonArray("throughput")) {
      JsonObject r = (JsonObject) o;
      out.append(cells(r.getString("what") + " (judged ÷ floor)", num(r.getDouble("perSecond"), "%.0f calls/s"),
        percent(r.getDouble("vsFloor")), ""));
    }
  }

  /** Issue 20: a machine as a cluster member against as an edge link, at the same counts. */
  private static void membership(StringBuilder out, List<JsonObject> rows) {
    out.append("\n| membership cost | all joined in | one more joins in | hub CPU (% of a core) | per machine"
      + " | hub heap after GC | per machine | settled after one leaves |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (JsonObject r : rows) {
      JsonObject f = r.getJsonObject("figures");
      if (f != null && f.containsKey("peers")) {
        out.append(cells(r.getString("what"), num(f.getDouble("allJoinedSeconds"), "%.1f s"),
          num(f.getLong("oneMoreJoinsMs").doubleValue(), "%.0f ms"),
          num(f.getDouble("hubCpuPercentOfOneCore"), "%.1f %%") + num(f.getDouble("hubIdleCpuPercentOfOneCore"),
            " (none: %.1f %%)"),
          num(f.getDouble("hubCpuPercentPerPeer"), "%.3f %%"), num(f.getDouble("hubHeapAfterGcMiB"), "%.1f MiB"),
          num(f.getLong("hubHeapPerPeerKiB").doubleValue(), "%.0f KiB"),
          num(f.getLong("settledAfterLeaveMs").doubleValue(), "%.0f ms")));
      }
    }
  }

  private static String statusNote(JsonObject r) {
    String note = r.getString("note") == null ? "" : r.getString("note");
    return "failed".equals(r.getString("status")) ? "FAILED: " + note : note;
  }

  private static String cells(String... values) {
    List<String> safe = new ArrayList<>();
    for (String v : values) {
      safe.add(v == null ? "" : v.replace("|", "\\|"));
    }
    return "| " + String.join(" | ", safe) + " |\n";
  }

  private static String ms(Double v) {
    if (v == null) {
      return "";
    }
    return String.format(Locale.ROOT, v < 1 ? "%.3f" : v < 10 ? "%.2f" : v < 100 ? "%.1f" : "%.0f", v);
  }

  private static String num(Double v, String format) {
    return v == null ? "" : String.format(Locale.ROOT, format, v);
  }

  private static String percent(Double v) {
    return v == null ? "" : String.format(Locale.ROOT, "%.1f %%", v * 100);
  }
}
