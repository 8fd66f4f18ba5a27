package io.fleetbus.hub.enrollment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fleetbus.shared.trust.Digests;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The hubs' sealed events: what a member sees, and what a hub refuses (another key, a swapped id, a replay, old). */
class HubEventChannelTest {
  private static final byte[] STORE_KEY = Digests.randomBytes(32);
  private static final JsonObject DECIDED = new JsonObject().put("type", "approval.decided").put("approvalId", "a1")
    .put("callId", "c1").put("tool", "run_command").put("requester", "bob").put("decidedBy", "ann").put("status", "denied");

  @Test
  void aMemberSeesIdsAndToolAnotherHubTheEvent() {
    JsonObject wire = new HubEventChannel(STORE_KEY).seal(DECIDED);
    assertEquals(java.util.Set.of("type", "approvalId", "callId", "tool", "sealed"), wire.fieldNames());
    assertFalse(wire.encode().contains("bob") || wire.encode().contains("ann") || wire.encode().contains("denied"));
    assertEquals(DECIDED, new HubEventChannel(STORE_KEY).open(wire, System.currentTimeMillis()));
  }

  @Test
  void anotherKeyASwappedIdAReplayAndAnOldBoxAreRefused() {
    HubEventChannel hub = new HubEventChannel(STORE_KEY);
    JsonObject wire = new HubEventChannel(STORE_KEY).seal(DECIDED);
    long now = System.currentTimeMillis();
    assertThrows(IllegalArgumentException.class, () -> new HubEventChannel(Digests.randomBytes(32)).open(wire, now));
    assertThrows(IllegalArgumentException.class, () -> hub.open(wire.copy().put("approvalId", "a2"), now));
    hub.open(wire, now);
    assertThrows(IllegalArgumentException.class, () -> hub.open(wire, now), "a replay");
    JsonObject later = new HubEventChannel(STORE_KEY).seal(DECIDED);
    assertThrows(IllegalArgumentException.class, () -> new HubEventChannel(STORE_KEY).open(later, now + 120_000));
  }

  /**
   * The peer event is sealed as the bus writes it to another member, once whatever the number of members: the bytes
   * the event bus's JSON codec writes (what a member decodes) are the sealed form, which opens to the event; a delivery
   * on this hub carries only the clear fields, and seals nothing.
   */
  @Test
  void thePeerEventIsSealedOnlyOnTheWireAndOnce() {
    java.util.concurrent.atomic.AtomicInteger seals = new java.util.concurrent.atomic.AtomicInteger();
    HubEventChannel hub = new HubEventChannel(STORE_KEY);
    JsonObject clear = hub.seal(DECIDED).copy();
    clear.remove("sealed");
    SealedOnWire body = new SealedOnWire(clear, () -> {
      seals.incrementAndGet();
      return hub.seal(DECIDED);
    });
    @SuppressWarnings("unchecked")
    io.vertx.core.eventbus.MessageCodec<Object, Object> codec = new io.vertx.core.eventbus.impl.CodecManager()
      .lookupCodec(body, null, false);
    JsonObject local = (JsonObject) codec.transform(body);
    assertEquals(java.util.Set.of("type", "approvalId", "callId", "tool"), local.fieldNames());
    assertEquals(0, seals.get(), "a delivery on this hub seals nothing");
    io.vertx.core.buffer.Buffer wire = io.vertx.core.buffer.Buffer.buffer();
    codec.encodeToWire(wire, body);
    codec.encodeToWire(io.vertx.core.buffer.Buffer.buffer(), body);
    assertEquals(1, seals.get(), "sealed once for every member it is written to");
    JsonObject member = (JsonObject) codec.decodeFromWire(0, wire);
    assertFalse(member.encode().contains("bob") || member.encode().contains("denied"), member.encode());
    assertEquals(DECIDED, new HubEventChannel(STORE_KEY).open(member, System.currentTimeMillis()));
  }
}
