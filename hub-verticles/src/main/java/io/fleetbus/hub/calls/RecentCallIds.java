package io.fleetbus.hub.calls;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.UUID;

/**
 * The ids of the latest calls a hub recorded the end of, oldest first, in 16 bytes each: a call id is a UUID the hub
 * made, kept as its two longs in a ring (100,000 of them as strings in a set took about 12 MiB of a 256 MiB heap; as
 * longs, 1.6 MiB). An id that is not a UUID is kept as it is, in a ring of its own. Read whole only by the audit check,
 * which names each id once. Confined to one event loop.
 */
final class RecentCallIds {
  private final int capacity;
  private final long[] bits;
  private final long[] order;
  private final String[] others;
  private final long[] othersOrder;
  private int next;
  private int size;
  private int nextOther;
  private int othersSize;
  private long added;

  RecentCallIds(int capacity) {
    this.capacity = capacity;
    this.bits = new long[capacity * 2];
    this.order = new long[capacity];
    // ids that are not UUIDs are rare (none from this hub's frontends): a small ring is enough
    int otherCapacity = Math.max(16, capacity / 64);
    this.others = new String[otherCapacity];
    this.othersOrder = new long[otherCapacity];
  }

  void add(String callId) {
    long n = added++;
    UUID uuid = asUuid(callId);
    if (uuid == null) {
      others[nextOther] = callId;
      othersOrder[nextOther] = n;
      nextOther = (nextOther + 1) % others.length;
      othersSize = Math.min(othersSize + 1, others.length);
      return;
    }
    bits[2 * next] = uuid.getMostSignificantBits();
    bits[2 * next + 1] = uuid.getLeastSignificantBits();
    order[next] = n;
    next = (next + 1) % capacity;
    size = Math.min(size + 1, capacity);
  }

  /** The ids kept, oldest first, each once; at most the latest {@code capacity} UUIDs (and the latest others). */
  List<String> toList() {
    List<Object[]> all = new ArrayList<>(size + othersSize);
    for (int i = 0; i < size; i++) {
      int slot = (next - size + i + capacity) % capacity;
      all.add(new Object[] {order[slot], new UUID(bits[2 * slot], bits[2 * slot + 1]).toString()});
    }
    for (int i = 0; i < othersSize; i++) {
      int slot = (nextOther - othersSize + i + others.length) % others.length;
      all.add(new Object[] {othersOrder[slot], others[slot]});
    }
    all.sort((a, b) -> Long.compare((long) a[0], (long) b[0]));
    LinkedHashSet<String> once = new LinkedHashSet<>();
    all.forEach(e -> once.add((String) e[1]));
    return new ArrayList<>(once);
  }

  /** The UUID this id spells in its canonical lower-case form, or null (then it is kept as a string). */
  private static UUID asUuid(String id) {
    if (id == null || id.length() != 36) {
      return null;
    }
    try {
      UUID uuid = UUID.fromString(id);
      return uuid.toString().equals(id) ? uuid : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
