package io.fleetbus.shared.msg;

import io.vertx.core.json.JsonObject;

/** Live figures a node sends with every heartbeat. {@code gpu} is null where none is readable. */
public record Metrics(double cpuPercent, long memoryMb, long memoryTotalMb, long diskFreeMb,
                      long uptimeSeconds, double loadAverage, JsonObject gpu) {

  public JsonObject toJson() {
    JsonObject j = new JsonObject()
      .put("cpuPercent", cpuPercent)
      .put("memoryMb", memoryMb)
      .put("memoryTotalMb", memoryTotalMb)
      .put("diskFreeMb", diskFreeMb)
      .put("uptimeSeconds", uptimeSeconds)
      .put("loadAverage", loadAverage);
    return gpu == null ? j : j.put("gpu", gpu);
  }

  public static Metrics fromJson(JsonObject j) {
    if (j == null) {
      return null;
    }
    return new Metrics(j.getDouble("cpuPercent", 0d), j.getLong("memoryMb", 0L), j.getLong("memoryTotalMb", 0L),
      j.getLong("diskFreeMb", 0L), j.getLong("uptimeSeconds", 0L), j.getDouble("loadAverage", 0d),
      j.getJsonObject("gpu"));
  }
}
