package io.fleetbus.node.trust;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Remembers the nonces of directives until they expire, so each signed directive acts once. Bounded:
 * a directive past its expiry is refused anyway, so only unexpired nonces need keeping; when even
 * those exceed the cap, new directives are refused rather than old nonces forgotten.
 * Called from the event loop (calls) and worker threads (controls): the methods are synchronized and short (a map
 * lookup and insert, no I/O).
 */
final class NonceWindow {
  private final int capacity;
  private final Map<String, Long> expiries = new LinkedHashMap<>();

  NonceWindow(int capacity) {
    this.capacity = capacity;
  }

  enum Seen { FIRST, REPLAY, FULL }

  synchronized Seen record(String nonce, long expiresAtMs, long nowMs) {
    purge(nowMs, false);
    if (expiries.containsKey(nonce)) {
      return Seen.REPLAY;
    }
    if (expiries.size() >= capacity) {
      purge(nowMs, true);
      if (expiries.size() >= capacity) {
        return Seen.FULL;
      }
    }
    expiries.put(nonce, expiresAtMs);
    return Seen.FIRST;
  }

  synchronized int size() {
    return expiries.size();
  }

  // nonces arrive in about expiry order (one validity for all), so the expired ones sit at the head
  private void purge(long nowMs, boolean all) {
    Iterator<Map.Entry<String, Long>> it = expiries.values().isEmpty() ? null : expiries.entrySet().iterator();
    while (it != null && it.hasNext()) {
      if (it.next().getValue() < nowMs) {
        it.remove();
      } else if (!all) {
        return;
      }
    }
  }
}
