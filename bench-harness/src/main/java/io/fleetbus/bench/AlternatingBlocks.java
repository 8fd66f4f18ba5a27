package io.fleetbus.bench;

import io.fleetbus.bench.load.CallPath;
import io.fleetbus.bench.load.Load;
import io.fleetbus.bench.load.LoadRunner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A same-run comparison of two paths that differ in one thing: timed in alternating blocks (A B A B …) so both see the
 * same machine state, each side's figure the median of its block p50s.
 */
final class AlternatingBlocks {
  private AlternatingBlocks() {
  }

  /** Figures {onP50Ms, offP50Ms, deltaMs, blocks, callsPerBlock, onBlockP50s, offBlockP50s}. */
  static JsonObject compare(LoadRunner runner, CallPath on, CallPath off, Load block, int rounds)
    throws InterruptedException {
    List<Double> onP50s = new ArrayList<>();
    List<Double> offP50s = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      onP50s.add(runner.measure(on, block).stats().p50Ms());
      offP50s.add(runner.measure(off, block).stats().p50Ms());
    }
    double onP50 = median(onP50s);
    double offP50 = median(offP50s);
    return new JsonObject().put("onP50Ms", round(onP50)).put("offP50Ms", round(offP50))
      .put("deltaMs", round(onP50 - offP50)).put("blocks", rounds).put("callsPerBlock", block.count())
      .put("onBlockP50s", new JsonArray(onP50s)).put("offBlockP50s", new JsonArray(offP50s));
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
