package io.fleetbus.node.trust;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.trust.CallKeys;
import io.fleetbus.shared.trust.DirectiveClaims;
import io.fleetbus.shared.trust.EdDsaJws;
import io.fleetbus.shared.trust.Ed25519Keys;
import io.fleetbus.shared.trust.HmacJws;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.params.X25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.X25519PublicKeyParameters;

/**
 * Checks that a call or control instruction is what the hub signed for this node: signature with the
 * hub key pinned at enrollment, every signed field equal, not expired, nonce never seen. Anything
 * else is refused with 401 before a tool is even looked up. A call signed with this process's call key
 * ({@link CallKeys}) carries the hub's grant: checked with the hub key once, then kept, so such a call costs one
 * HMAC. Thread-safe; cheap enough for the event loop.
 */
public final class DirectiveVerifier {
  /** Clocks of hub and node machines may differ this much. */
  static final long LEEWAY_MS = 30_000;
  private static final int MAX_REMEMBERED_NONCES = 200_000;

  private final String nodeId;
  private final Ed25519PublicKeyParameters hubKey;
  private static final int MAX_GRANTS = 64;
  private final NonceWindow nonces = new NonceWindow(MAX_REMEMBERED_NONCES);
  /** Grants that checked out, by their exact text: one per hub process that calls this node. */
  private final Map<String, Granted> grants = new ConcurrentHashMap<>();

  private record Granted(String instanceId, byte[] key, long expiresAtMs) {
  }

  public DirectiveVerifier(String nodeId, String hubPublicKeyPem) {
    this.nodeId = nodeId;
    this.hubKey = Ed25519Keys.publicKey(hubPublicKeyPem);
  }

  /** A call to a node process whose instance id is not known: only an Ed25519-signed call can pass. */
  public DirectiveClaims verifyCall(ToolCall call, long nowMs) {
    return verifyCall(call, null, nowMs);
  }

  /** A call to node process {@code ownInstance}, signed with Ed25519 or with that process's call key. */
  public DirectiveClaims verifyCall(ToolCall call, String ownInstance, long nowMs) {
    String what = "call " + call.callId();
    String signature = call.signature();
    int separator = signature == null ? -1 : signature.indexOf(CallKeys.SEPARATOR);
    DirectiveClaims claims = separator < 0 ? claims(signature, what)
      : keyed(signature.substring(separator + 1), callKey(signature.substring(0, separator), ownInstance, nowMs, call),
        what);
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

  private DirectiveClaims keyed(String jws, byte[] key, String what) {
    try {
      return DirectiveClaims.fromJson(HmacJws.verify(key, jws));
    } catch (EdDsaJws.Invalid e) {
      throw refused(what, e.getMessage());
    } catch (IllegalArgumentException e) {
      throw refused(what, "its signed claims are incomplete: " + e.getMessage());
    }
  }

  /** The call key a grant gives this process: the grant checked with the hub key the first time it is seen. */
  private byte[] callKey(String grant, String ownInstance, long nowMs, ToolCall call) {
    String what = "call " + call.callId();
    Granted known = grants.get(grant);
    if (known == null) {
      JsonObject claims;
      try {
        claims = EdDsaJws.verify(hubKey, grant);
      } catch (EdDsaJws.Invalid e) {
        throw refused(what, "its call key grant: " + e.getMessage());
      }
      String instance;
      X25519PublicKeyParameters hub;
      long expiresAt;
      try {
        instance = claims.getString("ins");
        hub = CallKeys.publicKey(claims.getString("hpk"));
        Long exp = claims.getLong("exp");
        if (!CallKeys.GRANT_TYPE.equals(claims.getString("typ")) || instance == null || hub == null || exp == null) {
          throw refused(what, "its call key grant is not a complete call-key grant (typ, ins, hpk, exp)");
        }
        expiresAt = exp * 1000;
      } catch (ClassCastException e) {
        throw refused(what, "its call key grant has a claim of the wrong type");
      }
      if (!nodeId.equals(claims.getString("nid"))) {
        throw refused(what, "its call key grant is for node '" + claims.getString("nid") + "', not this node");
      }
      if (!instance.equals(ownInstance)) {
        // the hub signed it for another process of this node: the same answer as a signature for another process
        throw CallAdmission.superseded(call.callId(), nodeId);
      }
      X25519PrivateKeyParameters own = InstanceKeys.privateKey(ownInstance);
      if (own == null) {
        throw refused(what, "it is signed with a call key, but this node process holds none");
      }
      try {
        known = new Granted(instance, CallKeys.derive(own, hub, nodeId, instance, claims.getString("hpk")), expiresAt);
      } catch (IllegalArgumentException e) {
        throw refused(what, "its call key grant names a hub key that gives no shared secret");
      }
      if (grants.size() >= MAX_GRANTS) {
        grants.clear();
      }
      grants.put(grant, known);
    } else if (!known.instanceId().equals(ownInstance)) {
      throw CallAdmission.superseded(call.callId(), nodeId);
    }
    if (nowMs > known.expiresAtMs() + LEEWAY_MS) {
      throw refused(what, "its call key grant expired " + (nowMs - known.expiresAtMs()) / 1000 + " s ago");
    }
    return known.key();
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
