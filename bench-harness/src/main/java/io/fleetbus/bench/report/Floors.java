package io.fleetbus.bench.report;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * Issue 38, from one run's rows: the floor, the durable floor (the floor + one committed SQLite record before the
 * answer), the raw fsync of the same folder, and the rows read against both floors. {@code ÷ durable floor} judges
 * the 1-in-flight latency of a call that must be durable before its answer; {@code ÷ floor} judges throughput.
 */
final class Floors {
  static final String FLOOR = "floor_latency";
  static final String DURABLE = "floor_durable_latency";
  static final String DURABLE_HOP = "floor_durable_hop_latency";
  static final String RAW_FSYNC = "raw_fsync";
  static final String THROUGHPUT = "floor_throughput";
  /** The durable floor measures what it says when its extra over the floor is the raw fsync within this share. */
  static final double WITHIN = 0.20;
  private static final List<String> LATENCY_ROWS = List.of("http_latency", "http_edge_latency",
    "http_latency_audit_after_answer");
  private static final List<String> THROUGHPUT_ROWS = List.of("ws_throughput", "http_throughput");

  private Floors() {
  }

  static JsonObject summary(Map<String, Row> rows) {
    Double floor = p50(rows.get(FLOOR));
    Double durable = p50(rows.get(DURABLE));
    Double fsync = p50(rows.get(RAW_FSYNC));
    JsonObject out = new JsonObject().put("floorP50Ms", floor).put("durableFloorP50Ms", durable)
      .put("rawFsyncP50Ms", fsync).put("rawFsyncP99Ms", rows.get(RAW_FSYNC) == null ? null : rows.get(RAW_FSYNC).p99Ms());
    if (floor != null && durable != null && fsync != null) {
      double extra = durable - floor;
      // issue 38 as worded: the extra against the bare raw fsync (no SQLite work, no wake-up after blocking)
      out.put("durableMinusFloorP50Ms", extra).put("durableExtraVsRawFsync", extra / fsync)
        .put("withinOfRawFsync", Math.abs(extra / fsync - 1) <= WITHIN);
      Row d = rows.get(DURABLE);
      Double commit = d.figures().getDouble("replierCommitP50Ms");
      out.put("replierCommitP50Ms", commit).put("outsideCommitP50Ms", d.figures().getDouble("outsideCommitP50Ms"))
        .put("sqliteOwnP50Ms", commit == null ? null : commit - fsync);
      fsyncAsARequestPaysIt(out, rows.get(RAW_FSYNC).figures(), floor, extra);
      Double hop = p50(rows.get(DURABLE_HOP));
      out.put("durableHopFloorP50Ms", hop).put("threadHopP50Ms", hop == null ? null : hop - durable);
    }
    JsonArray latency = new JsonArray();
    for (String id : LATENCY_ROWS) {
      Row r = rows.get(id);
      if (r != null && r.isTimed()) {
        latency.add(new JsonObject().put("id", id).put("what", r.what()).put("p50Ms", r.p50Ms())
          .put("vsFloor", Row.ratio(r.p50Ms(), floor)).put("vsDurableFloor", Row.ratio(r.p50Ms(), durable)));
      }
    }
    JsonArray throughput = new JsonArray();
    Row floorThr = rows.get(THROUGHPUT);
    for (String id : THROUGHPUT_ROWS) {
      Row r = rows.get(id);
      if (r != null && r.isTimed()) {
        throughput.add(new JsonObject().put("id", id).put("what", r.what()).put("perSecond", r.perSecond())
          .put("vsFloor", Row.ratio(r.perSecond(), floorThr == null ? null : floorThr.perSecond())));
      }
    }
    return out.put("latency", latency).put("throughput", throughput).put("auditCommit", auditCommit(rows, fsync));
  }

  /**
   * What one raw fsync adds to the floor's request when the replier's loop makes it before answering (the fsync, and
   * the loop's thread waking after it blocked): the durable floor's extra is judged against that, within
   * {@link #WITHIN}; the rest of the extra is SQLite's own work in the commit ({@code sqliteOwnP50Ms}).
   */
  private static void fsyncAsARequestPaysIt(JsonObject out, JsonObject raw, double floor, double extra) {
    Double request = raw.getDouble("requestP50Ms");
    if (request == null) {
      return;
    }
    double adds = request - floor;
    Double outside = raw.getDouble("outsideFsyncP50Ms");
    out.put("fsyncRequestP50Ms", request).put("fsyncAddsToRequestP50Ms", adds)
      .put("afterBlockingP50Ms", outside == null ? null : outside - floor)
      .put("durableExtraVsFsyncRequest", extra / adds).put("measuresWhatItSays", Math.abs(extra / adds - 1) <= WITHIN);
  }

  /** The hub's audit-commit stage of the 1-in-flight HTTP call against the raw fsync of the same run. */
  private static JsonObject auditCommit(Map<String, Row> rows, Double fsync) {
    Row stages = rows.get("http_stages");
    JsonArray list = stages == null ? null : stages.figures().getJsonArray("stages");
    if (list == null) {
      return null;
    }
    return list.stream().map(JsonObject.class::cast).filter(s -> "audited".equals(s.getString("stage"))).findFirst()
      .map(s -> new JsonObject().put("p50Ms", s.getDouble("p50Ms")).put("p99Ms", s.getDouble("p99Ms"))
        .put("vsRawFsync", Row.ratio(s.getDouble("p50Ms"), fsync)))
      .orElse(null);
  }

  private static Double p50(Row r) {
    return r == null ? null : r.p50Ms();
  }
}
