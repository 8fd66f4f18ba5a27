package io.fleetbus.bench.floor;

import io.fleetbus.bench.load.CallPath;
import io.fleetbus.bench.load.LatencyStats;
import io.fleetbus.bench.load.Load;
import io.fleetbus.bench.load.LoadRunner;
import io.fleetbus.bench.load.Measured;
import java.util.ArrayList;
import java.util.List;

/**
 * The 1-in-flight floor rows timed in rounds (floor, durable floor, …, raw fsync, floor, …) so that all see the same
 * machine and disk (issue 38 compares durable − floor with the fsync: on a shared machine the disk's and the CPU's load
 * change within seconds). Each row's figures pool the samples of all its blocks.
 */
public final class FloorRounds {
  /** One figure per path, in the order given. */
  public record Result(List<Measured> paths) {
  }

  private FloorRounds() {
  }

  /**
   * {@code load}: its warm-up untimed for each path, then its count split into {@code rounds} blocks per path and as
   * many fsyncs; {@code afterWarmup} runs once the warm-up is over (to forget the warm-up's own figures).
   */
  public static Result run(LoadRunner runner, List<CallPath> paths, Load load, int rounds, Runnable afterWarmup)
    throws InterruptedException {
    List<TimedPath> timed = paths.stream().map(TimedPath::new).toList();
    Load warm = new Load(1, 0, load.warmup(), load.cap());
    for (TimedPath p : timed) {
      runner.measure(p, warm);
      p.keep(true);
    }
    afterWarmup.run();
    int perBlock = Math.max(1, load.count() / rounds);
    Load block = new Load(1, 0, perBlock, load.cap());
    double[] seconds = new double[timed.size()];
    for (int i = 0; i < rounds; i++) {
      for (int p = 0; p < timed.size(); p++) {
        seconds[p] += seconds(runner.measure(timed.get(p), block));
      }
    }
    List<Measured> out = new ArrayList<>();
    for (int p = 0; p < timed.size(); p++) {
      out.add(measured(timed.get(p).samples(), seconds[p], load.warmup()));
    }
    return new Result(out);
  }

  private static double seconds(Measured m) {
    return m.perSecond() > 0 ? m.samples() / m.perSecond() : 0;
  }

  private static Measured measured(long[] nanos, double seconds, long warmup) {
    return new Measured(LatencyStats.of(nanos, nanos.length), seconds > 0 ? nanos.length / seconds : 0, warmup,
      nanos.length, 1);
  }
}
