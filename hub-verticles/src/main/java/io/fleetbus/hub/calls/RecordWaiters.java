package io.fleetbus.hub.calls;

import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Who waits for which call's record: each hears it once, or gives up on its own. Confined like {@link CallRecords}. */
final class RecordWaiters {
  private final Map<String, List<Promise<CallRecord>>> byCall = new HashMap<>();

  void add(String callId, Promise<CallRecord> p) {
    byCall.computeIfAbsent(callId, k -> new ArrayList<>()).add(p);
  }

  /** {@code p} stops waiting (it timed out, or heard otherwise). */
  void remove(String callId, Promise<CallRecord> p) {
    List<Promise<CallRecord>> w = byCall.get(callId);
    if (w != null) {
      w.remove(p);
      if (w.isEmpty()) {
        byCall.remove(callId);
      }
    }
  }

  /** Everyone waiting for {@code rec}'s call hears it; none waits for it any more. */
  void complete(CallRecord rec) {
    List<Promise<CallRecord>> w = byCall.remove(rec.callId());
    if (w != null) {
      w.forEach(p -> p.tryComplete(rec));
    }
  }
}
