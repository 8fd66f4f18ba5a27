package io.fleetbus.bench.sim;

import io.fleetbus.shared.msg.Metrics;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.ThreadLocalRandom;

/** Plausible machine figures for simulated nodes, shaped like what a real node sends and answers. */
final class FakeSystemInfo {
  private static final long MEMORY_TOTAL_MB = 16_000;

  private FakeSystemInfo() {
  }

  /** What get_system_info answers on a real node (same fields, made-up values). */
  static JsonObject systemInfo(String nodeId, String agentVersion) {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    long used = 2_000 + r.nextLong(8_000);
    return new JsonObject()
      .put("hostname", nodeId)
      .put("os", new JsonObject().put("family", "Debian GNU/Linux").put("manufacturer", "GNU/Linux")
        .put("version", "12").put("build", "6.1.0").put("bitness", 64))
      .put("cpu", new JsonObject().put("model", "Simulated CPU @ 2.40GHz").put("logicalCores", 8)
        .put("physicalCores", 4).put("usagePercent", Math.round(r.nextDouble(100) * 10) / 10.0))
      .put("memory", new JsonObject().put("totalMb", MEMORY_TOTAL_MB).put("usedMb", used)
        .put("availableMb", MEMORY_TOTAL_MB - used))
      .put("disk", new JsonObject().put("totalMb", 500_000).put("freeMb", 250_000).put("usedMb", 250_000))
      .put("gpus", new JsonArray())
      .put("uptimeSeconds", 86_400 + r.nextLong(86_400))
      .put("agentVersion", agentVersion);
  }

  /** Live figures for one heartbeat. */
  static Metrics metrics() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    return new Metrics(Math.round(r.nextDouble(100) * 10) / 10.0, 2_000 + r.nextLong(8_000), MEMORY_TOTAL_MB,
      250_000, 86_400 + r.nextLong(86_400), Math.round(r.nextDouble(4) * 100) / 100.0, null);
  }
}
