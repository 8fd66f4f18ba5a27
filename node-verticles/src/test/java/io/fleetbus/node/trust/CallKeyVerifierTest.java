package io.fleetbus.node.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.trust.CallKeys;
import io.fleetbus.shared.trust.DirectiveClaims;
import io.fleetbus.shared.trust.EdDsaJws;
import io.fleetbus.shared.trust.Ed25519Keys;
import io.fleetbus.shared.trust.HmacJws;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.X25519PrivateKeyParameters;
import org.junit.jupiter.api.Test;

/**
 * Calls signed with a call key (issue 17), with real keys, from an attacker's side: a cluster member sees every grant
 * and call on the bus and knows every instance id (they are public keys), but not the hub's Ed25519 key, the hub
 * process's X25519 key or the node process's. Each attack below is one that would pass if the check it names were
 * missing; each is refused, and the honest call still passes.
 */
class CallKeyVerifierTest {
  private final String[] hub = Ed25519Keys.generatePem();
  private final Ed25519PrivateKeyParameters hubKey = Ed25519Keys.privateKey(hub[0]);
  private final X25519PrivateKeyParameters hubProcess = CallKeys.newKey();
  private final String instance = InstanceKeys.newInstanceId();
  private final DirectiveVerifier verifier = new DirectiveVerifier("n1", hub[1]);
  private final ToolCall call = new ToolCall("c1", null, "alice", List.of("admin"), "run_command",
    new JsonObject().put("command", "echo hi"), "n1", null, 5000, false, null);

  private static String grant(Ed25519PrivateKeyParameters signer, X25519PrivateKeyParameters hubSide, String nodeId,
                              String ins, long now, long ttlMs) {
    return EdDsaJws.sign(signer, "k", CallKeys.grantClaims(nodeId, ins, CallKeys.publicText(hubSide), now, ttlMs));
  }

  /** What an honest hub sends: its grant and an HMAC under the key it derives from its own side. */
  private ToolCall keyed(ToolCall c, String grant, X25519PrivateKeyParameters hubSide, String ins) {
    byte[] key = CallKeys.derive(hubSide, CallKeys.publicKeyOf(ins), "n1", ins, CallKeys.publicText(hubSide));
    return keyed(c, grant, key, ins);
  }

  private ToolCall keyed(ToolCall c, String grant, byte[] key, String ins) {
    DirectiveClaims claims = DirectiveClaims.forCall(c, 3, System.currentTimeMillis(), 30_000, ins);
    return c.withSignature(grant + CallKeys.SEPARATOR + HmacJws.sign(key, claims.toJson()));
  }

  private String refusal(ToolCall c, FailureCode code) {
    FleetException e = assertThrows(FleetException.class,
      () -> verifier.verifyCall(c, instance, System.currentTimeMillis()));
    assertEquals(code, e.code(), e.getMessage());
    return e.getMessage();
  }

  private String honestGrant() {
    return grant(hubKey, hubProcess, "n1", instance, System.currentTimeMillis(), 3600_000);
  }

  @Test
  void theHubsCallKeyPassesAndItsGrantIsCheckedOnce() {
    assertTrue(instance.startsWith(CallKeys.INSTANCE_PREFIX));
    String grant = honestGrant();
    assertEquals(3, verifier.verifyCall(keyed(call, grant, hubProcess, instance), instance, System.currentTimeMillis())
      .tier());
    ToolCall second = new ToolCall("c2", null, "alice", List.of(), "get_env", new JsonObject(), "n1", null, 5000, false,
      null);
    assertEquals("c2", verifier.verifyCall(keyed(second, grant, hubProcess, instance), instance,
      System.currentTimeMillis()).subject());
  }

  @Test
  void aGrantNotSignedWithTheHubKeyIsRefused() {
    // a rogue member makes its own X25519 key and signs a grant for it with its own Ed25519 key
    Ed25519PrivateKeyParameters rogue = Ed25519Keys.privateKey(Ed25519Keys.generatePem()[0]);
    X25519PrivateKeyParameters rogueProcess = CallKeys.newKey();
    String forged = grant(rogue, rogueProcess, "n1", instance, System.currentTimeMillis(), 3600_000);
    assertTrue(refusal(keyed(call, forged, rogueProcess, instance), FailureCode.UNAUTHORIZED)
      .contains("call key grant: signature does not verify"));
  }

  @Test
  void aSeenGrantWithTheAttackersOwnKeyIsRefused() {
    String seen = honestGrant();
    // the attacker knows the node's public key (its instance id) and the hub's (in the grant), not their private halves
    X25519PrivateKeyParameters attacker = CallKeys.newKey();
    byte[] guess = CallKeys.derive(attacker, CallKeys.publicKeyOf(instance), "n1", instance,
      CallKeys.publicText(hubProcess));
    assertTrue(refusal(keyed(call, seen, guess, instance), FailureCode.UNAUTHORIZED).contains("MAC does not check"));
    // and once the grant is cached, the same
    verifier.verifyCall(keyed(call, seen, hubProcess, instance), instance, System.currentTimeMillis());
    ToolCall other = new ToolCall("c9", null, "mallory", List.of("admin"), "run_command",
      new JsonObject().put("command", "id"), "n1", null, 5000, false, null);
    assertTrue(refusal(keyed(other, seen, guess, instance), FailureCode.UNAUTHORIZED).contains("MAC does not check"));
  }

  @Test
  void aKeyedCallChangedOnTheWayOrReplayedIsRefused() {
    ToolCall good = keyed(call, honestGrant(), hubProcess, instance);
    ToolCall otherArgs = new ToolCall("c1", null, "alice", List.of("admin"), "run_command",
      new JsonObject().put("command", "rm -rf /"), "n1", null, 5000, false, good.signature());
    assertTrue(refusal(otherArgs, FailureCode.UNAUTHORIZED).contains("arguments differ"));
    verifier.verifyCall(good, instance, System.currentTimeMillis());
    assertTrue(refusal(good, FailureCode.UNAUTHORIZED).contains("replay"));
    String jws = good.signature().substring(good.signature().indexOf(CallKeys.SEPARATOR) + 1);
    String[] parts = jws.split("\\.");
    String tampered = good.signature().substring(0, good.signature().indexOf(CallKeys.SEPARATOR) + 1)
      + parts[0] + "." + parts[1] + "." + parts[2].substring(0, parts[2].length() - 2) + "AA";
    assertTrue(refusal(call.withSignature(tampered), FailureCode.UNAUTHORIZED).contains("MAC does not check"));
  }

  @Test
  void aGrantForAnotherNodeOrProcessOrPastItsTimeIsRefused() {
    // another node's grant (with its key) shown to this node
    String otherInstance = InstanceKeys.newInstanceId();
    String forN2 = EdDsaJws.sign(hubKey, "k", CallKeys.grantClaims("n2", instance, CallKeys.publicText(hubProcess),
      System.currentTimeMillis(), 3600_000));
    assertTrue(refusal(keyed(call, forN2, hubProcess, instance), FailureCode.UNAUTHORIZED).contains("for node 'n2'"));
    // a grant for another process of this node: the hub meant that process, so this one answers superseded (409)
    String forOther = grant(hubKey, hubProcess, "n1", otherInstance, System.currentTimeMillis(), 3600_000);
    assertTrue(refusal(keyed(call, forOther, hubProcess, otherInstance), FailureCode.CONFLICT)
      .startsWith(CallAdmission.SUPERSEDED));
    long longAgo = System.currentTimeMillis() - 3 * 3600_000;
    String expired = grant(hubKey, hubProcess, "n1", instance, longAgo, 3600_000);
    assertTrue(refusal(keyed(call, expired, hubProcess, instance), FailureCode.UNAUTHORIZED).contains("grant expired"));
    // a directive (not a grant) in the grant's place
    String directive = EdDsaJws.sign(hubKey, "k", DirectiveClaims.forCall(call, 3, System.currentTimeMillis(), 30_000)
      .toJson());
    assertTrue(refusal(keyed(call, directive, hubProcess, instance), FailureCode.UNAUTHORIZED)
      .contains("not a complete call-key grant"));
  }

  @Test
  void aProcessWithoutACallKeyTakesOnlyEd25519Calls() {
    ToolCall good = keyed(call, honestGrant(), hubProcess, instance);
    FleetException e = assertThrows(FleetException.class,
      () -> verifier.verifyCall(good, null, System.currentTimeMillis()));
    assertEquals(FailureCode.CONFLICT, e.code(), "an unknown own instance is not the grant's instance");
    String plainInstance = "i-7";
    String forPlain = grant(hubKey, hubProcess, "n1", plainInstance, System.currentTimeMillis(), 3600_000);
    FleetException none = assertThrows(FleetException.class, () -> verifier.verifyCall(
      call.withSignature(forPlain + CallKeys.SEPARATOR + "x.y.z"), plainInstance, System.currentTimeMillis()));
    assertTrue(none.getMessage().contains("holds none"), none.getMessage());
  }
}
