package io.fleetbus.hub.calls;

import io.fleetbus.hub.cluster.SharedMap;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.function.BiConsumer;

/**
 * The fleet's finished call records, in two maps by size (cluster.xml): a record whose stored form is at most
 * {@code smallChars} (nearly every call) goes to {@code small}, bounded by a count per partition, a constant-time check
 * on each write; a larger one (a big result) goes to {@code large}, bounded by a heap budget. A heap budget on the one
 * map every call writes added up all 271 partitions' cost on each write: 11 % of a loaded hub's CPU (issue 37).
 */
final class FinishedRecords {
  private final SharedMap small;
  private final SharedMap large;
  private final int smallChars;

  FinishedRecords(SharedMap small, SharedMap large, int smallChars) {
    this.small = small;
    this.large = large;
    this.smallChars = smallChars;
  }

  /** Writes the record, sealed once (twice for a large one); completes once a backup holds it as well. */
  Future<Void> set(Context ctx, String callId, JsonObject record) {
    String sealed = small.sealed(callId, record);
    if (sealed.length() <= smallChars) {
      return small.setSealed(ctx, callId, sealed);
    }
    // a record that was small before (rewritten with a larger result) must not be read instead of this one
    return large.set(ctx, callId, record).onSuccess(v -> small.remove(ctx, callId));
  }

  /** The record as stored (value null when no hub of this fleet wrote it); small first, as nearly every call is. */
  Future<SharedMap.Entry> get(Context ctx, String callId) {
    return small.get(ctx, callId).compose(e -> e != null && e.value() != null ? Future.succeededFuture(e)
      : large.get(ctx, callId));
  }

  void remove(Context ctx, String callId) {
    small.remove(ctx, callId);
    large.remove(ctx, callId);
  }

  /** Other hubs' writes to either map, as {@link SharedMap#listen}. */
  void listen(Context ctx, BiConsumer<String, JsonObject> onChange) {
    small.listen(ctx, onChange);
    large.listen(ctx, onChange);
  }
}
