package io.fleetbus.hub.routing;

import io.fleetbus.hub.registry.NodeRecord;
import io.fleetbus.shared.msg.Metrics;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Chooses the most suitable of several eligible nodes: the lowest load from its latest heartbeat
 * (CPU and memory share, plus GPU load when the tool needs a GPU); near-equal loads take turns.
 */
final class NodePicker {
  /** Loads closer than this count as a tie, so equal machines share the work. */
  private static final double TIE = 0.05;
  private long turn;

  NodeRecord pick(List<NodeRecord> eligible, boolean wantsGpu) {
    List<NodeRecord> sorted = new ArrayList<>(eligible);
    sorted.sort(Comparator.comparingDouble((NodeRecord n) -> load(n, wantsGpu)).thenComparing(NodeRecord::nodeId));
    double best = load(sorted.get(0), wantsGpu);
    List<NodeRecord> tied = sorted.stream().filter(n -> load(n, wantsGpu) - best <= TIE).toList();
    return tied.get((int) (turn++ % tied.size()));
  }

  /** 0 (idle) … 2 (CPU and memory full), +1 for a busy GPU; a node without metrics yet counts as half busy. */
  static double load(NodeRecord n, boolean wantsGpu) {
    Metrics m = n.metrics();
    if (m == null) {
      return 1.0;
    }
    double memory = m.memoryTotalMb() > 0 ? (double) m.memoryMb() / m.memoryTotalMb() : 0.5;
    double gpu = 0;
    if (wantsGpu) {
      gpu = m.gpu() == null ? 1.0 : m.gpu().getDouble("loadPercent", 100.0) / 100.0;
    }
    return m.cpuPercent() / 100.0 + memory + gpu;
  }
}
