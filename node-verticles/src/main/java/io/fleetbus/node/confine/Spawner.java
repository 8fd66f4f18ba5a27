package io.fleetbus.node.confine;

import java.io.IOException;

/** Where a node's processes are started from: a confined launcher thread, or (no confinement) the caller's thread. */
@FunctionalInterface
public interface Spawner {
  Spawner DIRECT = ProcessBuilder::start;

  Process start(ProcessBuilder pb) throws IOException;
}
