package io.fleetbus.hub.registry;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes' last heartbeats on their way to the file, so a restarted hub shows when each node was really last seen:
 * written in one transaction every interval for the nodes that beat since the last save (one write per node at most
 * per interval, not one per heartbeat), and at a clean stop. An offline step is written at once by the registry, which
 * then takes the node out of the batch here. Used on the registry verticle's event loop only.
 */
final class HeartbeatSaver {
  private static final Logger LOG = LoggerFactory.getLogger(HeartbeatSaver.class);

  private final Vertx vertx;
  private final NodeStore store;
  private final NodeTable table;
  /** Nodes whose latest heartbeat is not in the file yet. */
  private final Set<String> unsaved = new HashSet<>();

  HeartbeatSaver(Vertx vertx, NodeStore store, NodeTable table) {
    this.vertx = vertx;
    this.store = store;
    this.table = table;
  }

  /** Saves every {@code saveMs} from now on (the timer ends with the verticle). */
  void every(long saveMs) {
    vertx.setPeriodic(saveMs, t -> save());
  }

  /** The node's latest heartbeat is not in the file yet. */
  void beat(String nodeId) {
    unsaved.add(nodeId);
  }

  /** The node's sighting is written another way (an offline step) or no longer matters (a forgotten node). */
  void drop(String nodeId) {
    unsaved.remove(nodeId);
  }

  /** The sightings not yet in the file (node id → {lastSeen, lastHeartbeat}); they count as saved from now on. */
  private Map<String, long[]> take() {
    Map<String, long[]> last = new HashMap<>();
    for (String nodeId : unsaved) {
      NodeRecord rec = table.get(nodeId);
      if (rec != null) {
        last.put(nodeId, new long[] {rec.lastSeen(), rec.lastHeartbeat()});
      }
    }
    unsaved.clear();
    return last;
  }

  /** Writes the latest heartbeat of each node that sent one since the last save, all in one transaction. */
  private void save() {
    if (unsaved.isEmpty()) {
      return;
    }
    Map<String, long[]> last = take();
    vertx.executeBlocking(() -> {
      store.saveHeartbeats(last);
      return null;
    }, true).onFailure(err -> {
      LOG.warn("cannot save the nodes' last heartbeats [nodes: {}, reason: {}]", last.size(), err.getMessage());
      last.keySet().stream().filter(table::contains).forEach(unsaved::add); // tried again next time
    });
  }

  /** At a clean stop: the sightings not saved yet, then the file closed. */
  Future<Void> flushAndClose() {
    Map<String, long[]> last = take();
    return vertx.executeBlocking(() -> {
      try {
        if (!last.isEmpty()) {
          store.saveHeartbeats(last);
        }
      } finally {
        store.close();
      }
      return null;
    });
  }
}
