package io.fleetbus.hub.cluster;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The newest version of each entry of one shared map this hub has seen (issue 32). Every write carries a version that
 * only moves forward — the writer's clock in milliseconds, or one more than the newest it has seen for that key,
 * whichever is larger — sealed with the entry, so no member without the store key can change it. A reader refuses an
 * entry older than one it has seen (a saved entry written back: a revoked credential, a decided approval) and, in a
 * map with a time to live, one older than that time (it should have expired). Marks live in memory, two generations
 * of at most {@link #GENERATION} keys each (the older generation is dropped whole when the newer one fills: O(1), no
 * lock); what a hub that starts with no memory knows comes from its SQLite copy (see docs/security.md, "Shared state").
 */
final class EntryVersions {
  static final int GENERATION = 1 << 17;

  private final long ttlMs;
  private final boolean enforce;
  private final LongSupplier clock;
  /** A map whose first write of a key stands ({@link #firstWriteWins}): an older entry of a key is its first writer. */
  private volatile boolean firstWriteWins;
  private volatile ConcurrentHashMap<String, Long> current = new ConcurrentHashMap<>();
  private volatile ConcurrentHashMap<String, Long> previous = new ConcurrentHashMap<>();

  /**
   * @param ttlMs   the map's time to live (0: none)
   * @param enforce false only with the fault switch {@code noSharedFreshness}: every version is taken
   */
  EntryVersions(long ttlMs, boolean enforce, LongSupplier clock) {
    this.ttlMs = ttlMs;
    this.enforce = enforce;
    this.clock = clock;
  }

  /** The version of a write of {@code key} now: newer than any seen for it (marked once the write went through). */
  long next(String key) {
    return Math.max(clock.getAsLong(), seen(key) + 1);
  }

  /**
   * For a map whose first write of a key stands (the Idempotency-Key map, merged with {@code PutIfAbsentMergePolicy}):
   * an entry older than one seen is the key's first writer, kept by the merge after a split while this hub's half wrote
   * the key later (issue 34: that hub took the key over with a new call and a new approval after the heal). Such an
   * entry is taken; the seal and the time to live are still checked (a write-back older than the map keeps entries is
   * still refused).
   */
  void firstWriteWins() {
    firstWriteWins = true;
  }

  /** Null when an entry of version {@code v} may be taken (it is then the newest seen); else why not. */
  String refusal(String key, long v) {
    if (!enforce) {
      return null;
    }
    if (ttlMs > 0 && v + ttlMs < clock.getAsLong()) {
      return "written " + (clock.getAsLong() - v) / 1000 + " s ago, longer than the map keeps entries (a replay)";
    }
    long seen = seen(key);
    if (v < seen && !firstWriteWins) {
      return "version " + v + " is older than version " + seen + " seen before (a replay)";
    }
    mark(key, v);
    return null;
  }

  /** Raises the mark of {@code key} to {@code v}: what this hub's own copy (SQLite) says it has seen. */
  void floor(String key, long v) {
    mark(key, v);
  }

  /** The newest version seen for {@code key}; 0 when none. */
  long seen(String key) {
    Long a = current.get(key);
    Long b = previous.get(key);
    return Math.max(a == null ? 0 : a, b == null ? 0 : b);
  }

  private void mark(String key, long v) {
    ConcurrentHashMap<String, Long> now = current;
    now.merge(key, v, Math::max);
    if (now.size() > GENERATION) {
      previous = now;
      current = new ConcurrentHashMap<>();
    }
  }
}
