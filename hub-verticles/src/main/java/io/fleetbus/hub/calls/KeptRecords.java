package io.fleetbus.hub.calls;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The call records a hub keeps in its own memory, oldest first, within a count and a weight: a finished record holds
 * its call's whole result (up to each node's result cap, 100 KiB by default), so a count alone lets a run of large
 * results fill the heap (10,000 records of 100 KiB is about 1 GB on a 256 MiB hub). When either bound is passed the
 * oldest finished records go (they stay in the fleet's map as long as its budget allows); a call not finished yet is
 * never dropped here, and finished ones leave in the order they finished (so dropping the oldest is one step, whatever
 * is still open). The weight is the record's JSON size, estimated without encoding it.
 * Confined to one event loop, as {@link CallRecords} is.
 */
final class KeptRecords {
  private final int maxCount;
  private final long maxWeight;
  /** Calls not finished yet: never dropped here (they have no result to weigh). */
  private final Map<String, CallRecord> open = new HashMap<>();
  /** Finished calls with their weight, in the order they finished: the oldest go first. */
  private final LinkedHashMap<String, Kept> finished = new LinkedHashMap<>(1024);
  private long weight;

  private record Kept(CallRecord rec, long weight) {
  }

  /**
   * @param maxCount  the most finished records kept
   * @param maxWeight the most estimated JSON characters the finished records kept may weigh
   */
  KeptRecords(int maxCount, long maxWeight) {
    this.maxCount = maxCount;
    this.maxWeight = maxWeight;
  }

  CallRecord get(String callId) {
    Kept kept = finished.get(callId);
    return kept != null ? kept.rec() : open.get(callId);
  }

  boolean containsKey(String callId) {
    return finished.containsKey(callId) || open.containsKey(callId);
  }

  CallRecord getOrDefault(String callId, CallRecord otherwise) {
    CallRecord rec = get(callId);
    return rec != null ? rec : otherwise;
  }

  /** Keeps the record as the call's latest; a finished one goes last in line, then the oldest go past a bound. */
  void put(CallRecord rec) {
    remove(rec.callId());
    if (!rec.isFinished()) {
      open.put(rec.callId(), rec);
      return;
    }
    Kept kept = new Kept(rec, weightOf(rec));
    finished.put(rec.callId(), kept);
    weight += kept.weight();
    Iterator<Kept> oldest = finished.values().iterator();
    while ((finished.size() > maxCount || weight > maxWeight) && oldest.hasNext()) {
      weight -= oldest.next().weight();
      oldest.remove();
    }
  }

  /** Keeps the record unless one is kept for its call already. */
  void putIfAbsent(CallRecord rec) {
    if (!containsKey(rec.callId())) {
      put(rec);
    }
  }

  void remove(String callId) {
    open.remove(callId);
    Kept kept = finished.remove(callId);
    if (kept != null) {
      weight -= kept.weight();
    }
  }

  /** The records of calls not finished yet (a copy). */
  List<CallRecord> open() {
    return List.copyOf(open.values());
  }

  int size() {
    return finished.size() + open.size();
  }

  /** The estimated JSON characters of the finished records kept. */
  long weight() {
    return weight;
  }

  /** About the length of the record's JSON: its fixed fields, plus the result's data and message. */
  static long weightOf(CallRecord rec) {
    long w = 256;
    if (rec.result() != null) {
      w += estimate(rec.result().data());
      w += rec.result().errorMessage() == null ? 0 : rec.result().errorMessage().length();
    }
    return w;
  }

  /** The length a JSON value would encode to, near enough (strings counted as they are, no escapes). */
  static long estimate(Object value) {
    if (value == null) {
      return 4;
    } else if (value instanceof String s) {
      return s.length() + 2;
    } else if (value instanceof JsonObject o) {
      return estimate(o.getMap());
    } else if (value instanceof JsonArray a) {
      return estimate(a.getList());
    } else if (value instanceof Map<?, ?> m) {
      long w = 2;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        w += String.valueOf(e.getKey()).length() + 4 + estimate(e.getValue());
      }
      return w;
    } else if (value instanceof List<?> l) {
      long w = 2;
      for (Object o : l) {
        w += 1 + estimate(o);
      }
      return w;
    } else if (value instanceof byte[] b) {
      return b.length * 4L / 3 + 4;
    }
    return 8;
  }
}
