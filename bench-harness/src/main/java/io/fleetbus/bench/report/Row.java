package io.fleetbus.bench.report;

import io.fleetbus.bench.load.Measured;
import io.vertx.core.json.JsonObject;

/**
 * One line of the results. Timed rows carry p50/p99/throughput; resource rows carry their own
 * {@code figures}; rows that could not run say why in {@code note} with status {@code n/a} or {@code failed}.
 */
public record Row(String id, String what, String status, Double p50Ms, Double p99Ms, Double perSecond,
                  long warmup, long samples, JsonObject figures, String note) {

  public static final String OK = "ok";
  public static final String NOT_AVAILABLE = "n/a";
  public static final String FAILED = "failed";

  public Row {
    figures = figures == null ? new JsonObject() : figures;
  }

  public static Row timed(String id, String what, Measured m, String note) {
    return new Row(id, what, OK, m.stats().p50Ms(), m.stats().p99Ms(), m.perSecond(), m.warmup(), m.samples(), null, note);
  }

  public static Row figures(String id, String what, JsonObject figures, String note) {
    return new Row(id, what, OK, null, null, null, 0, 0, figures, note);
  }

  public static Row notAvailable(String id, String what, String reason) {
    return new Row(id, what, NOT_AVAILABLE, null, null, null, 0, 0, null, reason);
  }

  public static Row failed(String id, String what, String reason) {
    return new Row(id, what, FAILED, null, null, null, 0, 0, null, reason);
  }

  /** This row with these figures beside its timings. */
  public Row withFigures(JsonObject more) {
    return new Row(id, what, status, p50Ms, p99Ms, perSecond, warmup, samples, more, note);
  }

  public boolean isTimed() {
    return p50Ms != null;
  }

  /** @param durableFloor the durable floor's row (issue 38), null when not measured */
  public JsonObject toJson(Row floorLatency, Row durableFloor, Row floorThroughput) {
    JsonObject j = new JsonObject().put("id", id).put("what", what).put("status", status)
      .put("p50Ms", p50Ms).put("p99Ms", p99Ms).put("perSecond", perSecond)
      .put("p50VsFloor", ratio(p50Ms, floorLatency == null ? null : floorLatency.p50Ms))
      .put("p50VsDurableFloor", ratio(p50Ms, durableFloor == null ? null : durableFloor.p50Ms))
      .put("throughputVsFloor", ratio(perSecond, floorThroughput == null ? null : floorThroughput.perSecond))
      .put("warmup", warmup).put("samples", samples);
    if (!figures.isEmpty()) {
      j.put("figures", figures);
    }
    return j.put("note", note);
  }

  static Double ratio(Double value, Double floor) {
    return value == null || floor == null || floor == 0 ? null : value / floor;
  }
}
