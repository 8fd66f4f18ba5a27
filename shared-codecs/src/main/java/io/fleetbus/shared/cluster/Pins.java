package io.fleetbus.shared.cluster;

import java.util.Set;
import java.util.function.Consumer;

/**
 * Which cluster members may receive what this process sends to an address (issue 15, part 1): the event bus of a
 * member started with pins sees, for a pinned address, only those members' consumers. A hub pins a node's call and
 * control addresses to the member the node proved itself on ({@link MemberPins}); a node pins the hubs' addresses (and
 * the streams it answers into) to the members proven to be hubs of its fleet.
 */
public interface Pins {
  /** The Hazelcast member ids that may receive on {@code address}; null when any member may. */
  Set<String> membersFor(String address);

  /** Whether the pins may ever restrict {@code address} (what the event bus heard for it is kept to re-filter). */
  boolean covers(String address);

  /**
   * The event-bus address ({@code host:port}) the member proved as its own (a hub's signed statement), or null when
   * none is proven: the cluster's own registry ({@code __vertx.nodeInfo}) is a map any member can rewrite (issue 32).
   */
  default String provenBus(String memberUuid) {
    return null;
  }

  /**
   * Called with an address whose allowed members changed (null: possibly all covered addresses), so the event bus
   * drops what it cached. Set once by the cluster manager.
   */
  void onChange(Consumer<String> listener);
}
