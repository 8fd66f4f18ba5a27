package io.fleetbus.node.trust;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.trust.DirectiveClaims;
import io.fleetbus.shared.trust.EdDsaJws;
import io.fleetbus.shared.trust.Ed25519Keys;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;

/**
 * Checks that a call or control instruction is what the hub signed for this node: signature with the
 * hub key pinned at enrollment, every signed field equal, not expired, nonce never seen. Anything
 * else is refused with 401 before a tool is even looked up. Thread-safe; cheap enough for a worker
 * (Ed25519 verify, parsed key kept).
 */
public final class DirectiveVerifier {
  /** Clocks of hub and node machines may differ this much. */
  static final long LEEWAY_MS = 30_000;
  private static final int MAX_REMEMBERED_NONCES = 200_000;

  private final String nodeId;
  private final Ed25519PublicKeyParameters hubKey;
  private final NonceWindow nonces = new NonceWindow(MAX_REMEMBERED_NONCES);

  public DirectiveVerifier(String nodeId, String hubPublicKeyPem) {
    this.nodeId = nodeId;
    this.hubKey = Ed25519Keys.publicKey(hubPublicKeyPem);
  }

  public DirectiveClaims verifyCall(ToolCall call, long nowMs) {
    DirectiveClaims claims = claims(call.signature(), "call " + call.callId());
    String mismatch = claims.mismatch(call, nodeId);
    if (mismatch != null) {
      throw refused("call " + call.callId(), mismatch);
    }
    fresh(claims, "call " + call.callId(), nowMs);
    return claims;
  }

  /** The claims of a statement signed with the hub key this node trusts (e.g. a hub's "member M is a hub"); or null. */
  public io.vertx.core.json.JsonObject verifyStatement(String jws) {
    try {
      return jws == null ? null : EdDsaJws.verify(hubKey, jws);
    } catch (EdDsaJws.Invalid e) {
      return null;
    }
  }

  public DirectiveClaims verifyControl(Control control, long nowMs) {
    DirectiveClaims claims = claims(control.signature(), "control '" + control.type() + "'");
    String mismatch = claims.mismatch(control, nodeId);
    if (mismatch != null) {
      throw refused("control '" + control.type() + "'", mismatch);
    }
    fresh(claims, "control '" + control.type() + "'", nowMs);
    return claims;
  }

  private DirectiveClaims claims(String signature, String what) {
    if (signature == null || signature.isEmpty()) {
      throw refused(what, "it carries no hub signature");
    }
    try {
      return DirectiveClaims.fromJson(EdDsaJws.verify(hubKey, signature));
    } catch (EdDsaJws.Invalid e) {
      throw refused(what, e.getMessage());
    } catch (IllegalArgumentException e) {
      throw refused(what, "its signed claims are incomplete: " + e.getMessage());
    }
  }

  private void fresh(DirectiveClaims claims, String what, long nowMs) {
    long expiresAtMs = claims.expiresAt() * 1000;
    if (nowMs > expiresAtMs + LEEWAY_MS) {
      throw refused(what, "the signature expired " + (nowMs - expiresAtMs) / 1000 + " s ago (are the hub's and this"
        + " node's clocks in sync?)");
    }
    if (claims.issuedAt() * 1000 > nowMs + LEEWAY_MS) {
      throw refused(what, "the signature was issued in the future (are the clocks in sync?)");
    }
    switch (nonces.record(claims.nonce(), expiresAtMs + LEEWAY_MS, nowMs)) {
      case REPLAY -> throw refused(what, "it is a replay: this signed directive was already used");
      case FULL -> throw FailureCode.RATE_LIMITED.exception("node " + nodeId + " refused " + what
        + ": too many directives within the replay window; try again shortly");
      default -> { }
    }
  }

  private FleetException refused(String what, String why) {
    return FailureCode.UNAUTHORIZED.exception("node " + nodeId + " refused " + what + ": " + why);
  }
}
