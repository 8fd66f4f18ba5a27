package io.fleetbus.hub.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The policy's rules one by one, without a hub. */
class AccessTest {
  static final Caller VIEWER = new Caller("alice", List.of("viewer"));
  static final Caller APPROVER = new Caller("ann", List.of("approver"));

  @Test
  void everyoneHearsNodeFactsOnlyOwnersHearApprovalsAndCalls() {
    JsonObject heartbeat = new JsonObject().put("nodeId", "n1").put("seq", 3);
    JsonObject online = new JsonObject().put("type", "node.online").put("nodeId", "n1");
    JsonObject bobsApproval = new JsonObject().put("type", "approval.requested").put("requester", "bob");
    JsonObject alicesCall = new JsonObject().put("type", "call.finished").put("principal", "alice");
    for (Caller c : new Caller[] {null, VIEWER, APPROVER}) {
      assertTrue(Access.hears(c, heartbeat));
      assertTrue(Access.hears(c, online));
    }
    assertFalse(Access.hears(null, bobsApproval));
    assertFalse(Access.hears(VIEWER, bobsApproval));
    assertTrue(Access.hears(APPROVER, bobsApproval));
    assertTrue(Access.hears(VIEWER, alicesCall));
    assertFalse(Access.hears(new Caller("oscar", List.of("operator")), alicesCall));
  }

  @Test
  void othersSeeACallMaskedOrNotAtAll() {
    JsonObject rec = new JsonObject().put("callId", "c1").put("principal", "alice")
      .put("data", new JsonObject().put("stdout", "db_password=hunter22 ok"));
    assertEquals(rec, Access.callRecord(VIEWER, rec));
    assertFalse(Access.callRecord(APPROVER, rec).encode().contains("hunter22"));
    assertEquals(404, assertThrows(FleetException.class, () -> Access.callRecord(new Caller("vic", List.of("viewer")), rec))
      .code().code);
  }

  @Test
  void auditQueriesNarrowToTheirOwnEntries() {
    assertEquals("alice", Access.auditQuery(VIEWER, new JsonObject()).getString("principal"));
    assertEquals(403, assertThrows(FleetException.class, () -> Access.auditQuery(VIEWER,
      new JsonObject().put("principal", "bob"))).code().code);
    assertEquals("bob", Access.auditQuery(APPROVER, new JsonObject().put("principal", "bob")).getString("principal"));
  }
}
