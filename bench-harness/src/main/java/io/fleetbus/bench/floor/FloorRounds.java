package io.fleetbus.bench.floor;

import io.fleetbus.bench.load.CallPath;
import io.fleetbus.bench.load.LatencyStats;
import io.fleetbus.bench.load.Load;
import io.fleetbus.bench.load.LoadRunner;
import io.fleetbus.bench.load.Measured;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

/**
 * The 1-in-flight floor rows and the raw fsync timed in rounds (floor, durable floor, …, fsync, floor, …) so that all
 * see the same machine and disk (issue 38 compares durable − floor with the fsync: on a shared machine the disk's and
 * the CPU's load change within seconds). Each row's figures pool the samples of all its blocks.
 */
public final class FloorRounds {
  /** One figure per path, in the order given, and the raw fsync's. */
  public record Result(List<Measured> paths, Measured fsync) {
  }

  private FloorRounds() {
  }

  /**
   * {@code load}: its warm-up untimed for each path, then its count split into {@code rounds} blocks per path and as
   * many fsyncs; {@code afterWarmup} runs once the warm-up is over (to forget the warm-up's own figures).
   */
  public static Result run(LoadRunner runner, List<CallPath> paths, RawFsync fsync, Load load, int rounds,
                           Runnable afterWarmup) throws InterruptedException, IOException {
    List<TimedPath> timed = paths.stream().map(TimedPath::new).toList();
    Load warm = new Load(1, 0, load.warmup(), load.cap());
    for (TimedPath p : timed) {
      runner.measure(p, warm);
      p.keep(true);
    }
    int fsyncWarmup = Math.min(load.warmup(), 500);
    fsync.block(fsyncWarmup);
    afterWarmup.run();
    int perBlock = Math.max(1, load.count() / rounds);
    Load block = new Load(1, 0, perBlock, load.cap());
    double[] seconds = new double[timed.size() + 1];
    List<long[]> fsyncs = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      for (int p = 0; p < timed.size(); p++) {
        seconds[p] += seconds(runner.measure(timed.get(p), block));
      }
      long t0 = System.nanoTime();
      fsyncs.add(fsync.block(perBlock));
      seconds[timed.size()] += (System.nanoTime() - t0) / 1e9;
    }
    List<Measured> out = new ArrayList<>();
    for (int p = 0; p < timed.size(); p++) {
      out.add(measured(timed.get(p).samples(), seconds[p], load.warmup()));
    }
    return new Result(out, measured(fsyncs.stream().flatMapToLong(LongStream::of).toArray(), seconds[timed.size()],
      fsyncWarmup));
  }

  private static double seconds(Measured m) {
    return m.perSecond() > 0 ? m.samples() / m.perSecond() : 0;
  }

  private static Measured measured(long[] nanos, double seconds, long warmup) {
    return new Measured(LatencyStats.of(nanos, nanos.length), seconds > 0 ? nanos.length / seconds : 0, warmup,
      nanos.length, 1);
  }
}
