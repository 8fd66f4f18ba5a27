package io.fleetbus.node.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.trust.DirectiveClaims;
import io.fleetbus.shared.trust.EdDsaJws;
import io.fleetbus.shared.trust.Ed25519Keys;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.junit.jupiter.api.Test;

/** Real Ed25519 keys; every way a directive can be wrong is refused with 401 and says why. */
class DirectiveVerifierTest {
  private final String[] hub = Ed25519Keys.generatePem();
  private final Ed25519PrivateKeyParameters hubKey = Ed25519Keys.privateKey(hub[0]);
  private final DirectiveVerifier verifier = new DirectiveVerifier("n1", hub[1]);
  private final ToolCall call = new ToolCall("c1", null, "alice", List.of("admin"), "run_command",
    new JsonObject().put("command", "echo hi").put("timeout_seconds", 25), "n1", null, 5000, false, null);

  private ToolCall signed(ToolCall c, long now, long ttlMs, Ed25519PrivateKeyParameters key) {
    return c.withSignature(EdDsaJws.sign(key, "k", DirectiveClaims.forCall(c, 3, now, ttlMs).toJson()));
  }

  private String refusal(ToolCall c) {
    FleetException e = assertThrows(FleetException.class, () -> verifier.verifyCall(c, System.currentTimeMillis()));
    assertEquals(FailureCode.UNAUTHORIZED, e.code());
    return e.getMessage();
  }

  @Test
  void theHubsSignatureForExactlyThisCallPasses() {
    DirectiveClaims claims = verifier.verifyCall(signed(call, System.currentTimeMillis(), 30_000, hubKey), System.currentTimeMillis());
    assertEquals(3, claims.tier());
  }

  @Test
  void unsignedOrForeignSignaturesAreRefused() {
    assertTrue(refusal(call).contains("no hub signature"));
    Ed25519PrivateKeyParameters rogue = Ed25519Keys.privateKey(Ed25519Keys.generatePem()[0]);
    assertTrue(refusal(signed(call, System.currentTimeMillis(), 30_000, rogue)).contains("does not verify"));
    assertTrue(refusal(call.withSignature("garbage")).contains("malformed"));
  }

  @Test
  void anyChangeAfterSigningIsRefused() {
    ToolCall good = signed(call, System.currentTimeMillis(), 30_000, hubKey);
    ToolCall otherArgs = new ToolCall("c1", null, "alice", List.of("admin"), "run_command",
      new JsonObject().put("command", "rm -rf /").put("timeout_seconds", 25), "n1", null, 5000, false, good.signature());
    assertTrue(refusal(otherArgs).contains("arguments differ"));
    assertTrue(refusal(good.withNode("n2")).contains("not this node"));
    ToolCall otherId = new ToolCall("c2", null, "alice", List.of(), "run_command", call.args(), "n1", null, 5000, false,
      good.signature());
    assertTrue(refusal(otherId).contains("another call id"));
    ToolCall otherTool = new ToolCall("c1", null, "alice", List.of(), "get_env", call.args(), "n1", null, 5000, false,
      good.signature());
    assertTrue(refusal(otherTool).contains("tool"));
  }

  @Test
  void expiredAndReplayedDirectivesAreRefused() {
    long longAgo = System.currentTimeMillis() - 10 * 60_000;
    assertTrue(refusal(signed(call, longAgo, 30_000, hubKey)).contains("expired"));
    ToolCall once = signed(call, System.currentTimeMillis(), 30_000, hubKey);
    verifier.verifyCall(once, System.currentTimeMillis());
    assertTrue(refusal(once).contains("replay"));
  }

  @Test
  void controlNeedsItsOwnSignatureForThisNode() {
    Control cancel = new Control(Control.CANCEL, new JsonObject().put("callId", "c1"));
    Control good = cancel.withSignature(EdDsaJws.sign(hubKey, "k",
      DirectiveClaims.forControl("n1", cancel, System.currentTimeMillis(), 30_000).toJson()));
    verifier.verifyControl(good, System.currentTimeMillis());
    Control forOther = cancel.withSignature(EdDsaJws.sign(hubKey, "k",
      DirectiveClaims.forControl("n2", cancel, System.currentTimeMillis(), 30_000).toJson()));
    assertThrows(FleetException.class, () -> verifier.verifyControl(forOther, System.currentTimeMillis()));
    Control callSignature = cancel.withSignature(signed(call, System.currentTimeMillis(), 30_000, hubKey).signature());
    assertThrows(FleetException.class, () -> verifier.verifyControl(callSignature, System.currentTimeMillis()));
    assertThrows(FleetException.class, () -> verifier.verifyControl(cancel, System.currentTimeMillis()));
  }
}
