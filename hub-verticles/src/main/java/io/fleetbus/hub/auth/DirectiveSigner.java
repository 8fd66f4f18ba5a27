package io.fleetbus.hub.auth;

import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.trust.DirectiveClaims;
import io.fleetbus.shared.trust.EdDsaJws;
import io.fleetbus.shared.trust.Ed25519Keys;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;

/**
 * Signs what the hub sends a node — tool calls and control instructions — so a node acts only on
 * the hub's word, not on whatever a cluster member puts on its address. Ed25519 with the parsed key
 * kept: a few tens of microseconds, cheap enough for the router's event loop. Thread-safe.
 */
public final class DirectiveSigner {
  private final Ed25519PrivateKeyParameters key;
  private final Ed25519PublicKeyParameters publicKey;
  private final String keyId;
  private final long ttlMs;

  DirectiveSigner(Ed25519PrivateKeyParameters key, Ed25519PublicKeyParameters publicKey, long ttlMs) {
    this.key = key;
    this.publicKey = publicKey;
    this.keyId = Ed25519Keys.keyId(publicKey);
    this.ttlMs = ttlMs;
  }

  public ToolCall sign(ToolCall call, int tier) {
    return sign(call, tier, null);
  }

  /** For the node process {@code instanceId} only (null: any process with the node's id). */
  public ToolCall sign(ToolCall call, int tier, String instanceId) {
    DirectiveClaims claims = DirectiveClaims.forCall(call, tier, System.currentTimeMillis(), ttlMs, instanceId);
    return call.withSignature(EdDsaJws.sign(key, keyId, claims.toJson()));
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
