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
}
