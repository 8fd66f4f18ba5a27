package io.fleetbus.hub.auth;

import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.trust.CallKeys;
import io.fleetbus.shared.trust.DirectiveClaims;
import io.fleetbus.shared.trust.EdDsaJws;
import io.fleetbus.shared.trust.Ed25519Keys;
import io.fleetbus.shared.trust.HmacJws;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;

/**
 * Signs what the hub sends a node — tool calls and control instructions — so a node acts only on
 * the hub's word, not on whatever a cluster member puts on its address. Ed25519 with the parsed key
 * kept. A call to a node process whose instance id is a call key is signed with that process's call key instead
 * (an HMAC, with the Ed25519-signed grant alongside; see {@link CallKeys}): the Ed25519 signature and its check cost
 * 26 % of the hub's and 56 % of the node's CPU per call. {@code -Dfleetbus.signEveryCall=true} signs every call with
 * Ed25519 as before (for comparison). Thread-safe.
 */
public final class DirectiveSigner {
  private final Ed25519PrivateKeyParameters key;
  private final Ed25519PublicKeyParameters publicKey;
  private final String keyId;
  private final long ttlMs;
  private final CallKeyGrants grants;
  private final boolean signEveryCall = FaultSwitch.SIGN_EVERY_CALL.on();

  DirectiveSigner(Ed25519PrivateKeyParameters key, Ed25519PublicKeyParameters publicKey, long ttlMs) {
    this.key = key;
    this.publicKey = publicKey;
    this.keyId = Ed25519Keys.keyId(publicKey);
    this.ttlMs = ttlMs;
    this.grants = new CallKeyGrants(this::signStatement);
  }

  public ToolCall sign(ToolCall call, int tier) {
    return sign(call, tier, null);
  }

  /** For the node process {@code instanceId} only (null: any process with the node's id). */
  public ToolCall sign(ToolCall call, int tier, String instanceId) {
    return sign(call, tier, instanceId, ttlMs);
  }

  /**
   * As {@link #sign(ToolCall, int, String)}, valid for at most {@code maxTtlMs} (an approved call: no longer than its
   * approval, so the node refuses it after that).
   */
  public ToolCall sign(ToolCall call, int tier, String instanceId, long maxTtlMs) {
    long now = System.currentTimeMillis();
    DirectiveClaims claims = DirectiveClaims.forCall(call, tier, now, Math.min(ttlMs, maxTtlMs), instanceId);
    CallKeyGrants.Session session = instanceId == null || signEveryCall ? null
      : grants.sessionFor(call.nodeId(), instanceId, now);
    return call.withSignature(session == null ? EdDsaJws.sign(key, keyId, claims.toJson())
      : session.grant() + CallKeys.SEPARATOR + HmacJws.sign(session.key(), claims.toJson()));
  }

  /** Any statement of this fleet's hubs (e.g. "member M is a hub of fleet F"), signed with the directive key. */
  public String signStatement(io.vertx.core.json.JsonObject claims) {
    return EdDsaJws.sign(key, keyId, claims);
  }

  /** The claims of a statement signed with this fleet's directive key; null when it was not (or is malformed). */
  public io.vertx.core.json.JsonObject verifyStatement(String jws) {
    try {
      return EdDsaJws.verify(publicKey, jws);
    } catch (EdDsaJws.Invalid e) {
      return null;
    }
  }

  public Control sign(String nodeId, Control control) {
    DirectiveClaims claims = DirectiveClaims.forControl(nodeId, control, System.currentTimeMillis(), ttlMs);
    return control.withSignature(EdDsaJws.sign(key, keyId, claims.toJson()));
  }
}
