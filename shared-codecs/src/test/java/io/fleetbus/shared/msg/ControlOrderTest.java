package io.fleetbus.shared.msg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The control instructions' one builder ({@link ControlOrder}) and one reader ({@link Control#kind()}). */
class ControlOrderTest {
  @Test
  void eachFactoryBuildsTheBodyItsKindNeeds() {
    Control cancel = ControlOrder.cancel("n1", "c1", "alice").toControl();
    assertEquals(Control.CANCEL, cancel.type());
    assertEquals(new JsonObject().put("callId", "c1").put("by", "alice"), cancel.body());
    assertEquals(Control.Kind.CANCEL, cancel.kind());

    ControlOrder status = ControlOrder.callStatus("n1", "c1", 3000);
    assertEquals(3000 + ControlOrder.DEFAULT_TIMEOUT_MS, status.timeoutMs(), "the node may wait, then answer");
    assertEquals(Control.Kind.CALL_STATUS, status.toControl().kind());
    assertEquals(ControlOrder.DEFAULT_TIMEOUT_MS, ControlOrder.rekey("n1", "nonce", "box").timeoutMs());
  }

  @Test
  void anOrderWithoutWhatItsKindNeedsIsABadRequestNamingIt() {
    FleetException noCall = assertThrows(FleetException.class, () -> ControlOrder.cancel("n1", null, "alice"));
    assertEquals(FailureCode.BAD_REQUEST, noCall.code());
    assertEquals("a cancel control needs 'callId' in its body", noCall.getMessage());

    FleetException noNode = assertThrows(FleetException.class, () -> ControlOrder.callStatus(" ", "c1", 0));
    assertEquals("a control order needs the node it is for", noNode.getMessage());

    FleetException empty = assertThrows(FleetException.class, () -> ControlOrder.configUpdate("n1", new JsonObject()));
    assertEquals(FailureCode.BAD_REQUEST, empty.code());
  }

  @Test
  void anUnknownTypeIsABadRequestNamingTheKnownOnes() {
    FleetException unknown = assertThrows(FleetException.class, () -> new Control("reboot", null).kind());
    assertEquals(FailureCode.BAD_REQUEST, unknown.code());
    assertEquals("unknown control type 'reboot': one of [cancel, config_update, rekey, call_status, dry_run, refuse_call]",
      unknown.getMessage());
  }
}
