package io.fleetbus.bench.proc;

import io.fleetbus.bench.report.Row;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * CPU the hub and node JVMs spend per call under load: their user + system CPU time (from /proc) across the timed
 * calls of one load, divided by the calls. {@link #start} is taken between warm-up and timed calls.
 */
public final class CpuPerCall {
  private final long hubPid;
  private final long nodePid;
  private double hubAtStart;
  private double nodeAtStart;
  private long startNanos;

  public CpuPerCall(long hubPid, long nodePid) {
    this.hubPid = hubPid;
    this.nodePid = nodePid;
  }

  /** Marks the start of the timed calls (a {@code beforeTimed} hook of the load runner). */
  public Future<Void> start() {
    hubAtStart = ProcFs.cpuSeconds(hubPid);
    nodeAtStart = ProcFs.cpuSeconds(nodePid);
    startNanos = System.nanoTime();
    return Future.succeededFuture();
  }

  /** The figures since {@link #start}: CPU ms per call for hub and node, and each JVM's share of the machine. */
  public Row row(String id, String what, long calls) {
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    double hub = ProcFs.cpuSeconds(hubPid) - hubAtStart;
    double node = ProcFs.cpuSeconds(nodePid) - nodeAtStart;
    return Row.figures(id, what, new JsonObject()
      .put("calls", calls)
      .put("hubCpuMsPerCall", round(hub * 1000 / calls)).put("nodeCpuMsPerCall", round(node * 1000 / calls))
      .put("hubCpuPercentOfOneCore", round(hub / seconds * 100)).put("nodeCpuPercentOfOneCore", round(node / seconds * 100)),
      "user + system CPU from /proc/<pid>/stat (10 ms ticks) over the timed calls");
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
