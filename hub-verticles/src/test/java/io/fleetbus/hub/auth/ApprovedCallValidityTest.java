package io.fleetbus.hub.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.trust.DirectiveVerifier;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34: an approved call carries its approval's validity in its signature — signed for no longer than the approval
 * is valid — so the node (its own expiry check, with its clock leeway) refuses a delivery after it, whichever hub sent
 * it. Signed with the directive TTL alone (as before) the same late delivery passes.
 */
class ApprovedCallValidityTest {
  @TempDir
  Path keys;

  @Test
  void aNodeRefusesAnApprovedCallDeliveredAfterItsApprovalExpired() throws Exception {
    HubKeys hub = HubKeys.loadOrCreate(keys);
    DirectiveSigner signer = hub.directiveSigner(30_000);
    DirectiveVerifier node = new DirectiveVerifier("n1", hub.directivePublicPem());
    ToolCall call = new ToolCall("c1", null, "alice", List.of("admin"), "run_command",
      new JsonObject().put("command", "systemctl restart app"), "n1", null, 5000, false, null);
    long validMs = 2000;
    // the node's clock when a late delivery arrives: past the approval (and the node's 30 s leeway), within the TTL's
    long late = System.currentTimeMillis() + validMs + 31_000;

    FleetException refused = assertThrows(FleetException.class,
      () -> node.verifyCall(signer.sign(call, 3, null, validMs), late));
    assertEquals(FailureCode.UNAUTHORIZED, refused.code());
    assertTrue(refused.getMessage().contains("expired"), refused.getMessage());
    assertEquals("c1", node.verifyCall(signer.sign(call, 3, null, 30_000), late).subject(),
      "signed for the directive TTL alone, the late delivery passes");
  }
}
