package io.fleetbus.hub.enrollment;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.trust.CanonicalJson;
import io.fleetbus.shared.trust.SealedBox;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * How a hub's own events reach the fleet's other hubs without telling other cluster members more than ids, tools and
 * sizes (issue 32): the event goes to this hub's own listeners locally, and to {@link Addresses#PEER_EVENTS} as
 * {@code {type, callId, approvalId, jobId, nodeId, tool, sealed}} where {@code sealed} is the whole event in
 * AES-256-GCM under a key derived from the store key every hub of the fleet holds, bound to the clear fields. A hub
 * opens what arrives there, refuses a box it saw before or older than {@value #MAX_AGE_MS} ms (a replay), and
 * republishes the event locally with {@link Addresses#RELAYED_HEADER}. A member without the store key reads no user
 * name, outcome or decision, and cannot make a box that opens.
 */
final class HubEventChannel {
  static final String LOCAL_HEADER = "fb-local";
  private static final String PURPOSE = "fleetbus hub events (sealed)";
  private static final long MAX_AGE_MS = 60_000;
  private static final Set<String> CLEAR = Set.of("type", "callId", "approvalId", "jobId", "nodeId", "tool");

  private final byte[] sealKey;
  private final String instance = UUID.randomUUID().toString();
  private final java.util.concurrent.atomic.AtomicLong boxes = new java.util.concurrent.atomic.AtomicLong();
  /** Boxes opened within {@link #MAX_AGE_MS}, by id, oldest first (confined to the consumer's event loop). */
  private final Map<String, Long> seen = new LinkedHashMap<>();

  HubEventChannel(byte[] storeKey) {
    this.sealKey = storeKey.clone();
  }

  /**
   * This hub's event: to its own listeners, and to the other hubs sealed, as the bus writes it to them
   * ({@link SealedOnWire}: nothing is sealed while no other member listens).
   */
  void publish(Vertx vertx, JsonObject event) {
    vertx.eventBus().publish(Addresses.EVENTS, event,
      new DeliveryOptions().setLocalOnly(true).addHeader(LOCAL_HEADER, "1"));
    vertx.eventBus().publish(Addresses.PEER_EVENTS, new SealedOnWire(clearOf(event), () -> seal(event)));
  }

  JsonObject seal(JsonObject event) {
    JsonObject clear = clearOf(event);
    // unique per box without a random draw per event: this process's random prefix and a counter
    JsonObject inner = new JsonObject().put("id", instance + "-" + boxes.incrementAndGet())
      .put("at", System.currentTimeMillis()).put("event", event);
    return clear.put("sealed", SealedBox.seal(sealKey, PURPOSE, CanonicalJson.of(clear), inner));
  }

  /** The fields any member may read: ids, type and tool. */
  private static JsonObject clearOf(JsonObject event) {
    JsonObject clear = new JsonObject();
    CLEAR.forEach(f -> {
      if (event.getValue(f) instanceof String s) {
        clear.put(f, s);
      }
    });
    return clear;
  }

  /** The event inside, or IllegalArgumentException when it does not open, is too old, or was opened before. */
  JsonObject open(JsonObject wire, long now) {
    if (!(wire.getValue("sealed") instanceof String box)) {
      throw new IllegalArgumentException("not sealed");
    }
    JsonObject clear = wire.copy();
    clear.remove("sealed");
    JsonObject inner = SealedBox.open(sealKey, PURPOSE, CanonicalJson.of(clear), box);
    long at = inner.getLong("at", 0L);
    String id = inner.getString("id");
    forgetOlderThan(now - MAX_AGE_MS);
    if (at < now - MAX_AGE_MS || at > now + MAX_AGE_MS || id == null || seen.putIfAbsent(id, at) != null) {
      throw new IllegalArgumentException("a replay (seen before, or sealed at " + at + ")");
    }
    return inner.getJsonObject("event");
  }

  private void forgetOlderThan(long oldest) {
    for (Iterator<Long> it = seen.values().iterator(); it.hasNext(); ) {
      if (it.next() >= oldest) {
        return;
      }
      it.remove();
    }
  }
}
