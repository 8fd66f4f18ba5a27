package io.fleetbus.shared.trust;

import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.json.JsonObject;
import java.util.Objects;

/**
 * What the hub signs for a node: which call (or control instruction) for which node, the SHA-256 of
 * its canonical arguments, who asked, a one-time nonce and a short validity. The node acts only on
 * a message whose fields match these claims exactly.
 *
 * @param kind      {@code call} or {@code control}
 * @param subject   the call id, or the control type
 * @param digest    SHA-256 (hex) of the canonical args (call) or body (control)
 * @param tier      the tier the hub applied (the node journals calls of tier 2 and above)
 * @param issuedAt  seconds since the epoch (JWT NumericDate), like {@code expiresAt}
 * @param instanceId the node process the hub registered (a call): another process with the node's id — one that
 *                  hung and was replaced — refuses it; null: any process of the node
 */
public record DirectiveClaims(String kind, String nodeId, String subject, String tool, String digest, String principal,
                              String idempotencyKey, boolean stream, int tier, String nonce, long issuedAt,
                              long expiresAt, String instanceId) {

  public static final String CALL = "call";
  public static final String CONTROL = "control";

  public static DirectiveClaims forCall(ToolCall call, int tier, long nowMs, long ttlMs) {
    return forCall(call, tier, nowMs, ttlMs, null);
  }

  public static DirectiveClaims forCall(ToolCall call, int tier, long nowMs, long ttlMs, String instanceId) {
    return new DirectiveClaims(CALL, call.nodeId(), call.callId(), call.tool(), CanonicalJson.sha256(call.args()),
      call.principal(), call.idempotencyKey(), call.stream(), tier, newNonce(), nowMs / 1000, (nowMs + ttlMs + 999) / 1000,
      instanceId);
  }

  public static DirectiveClaims forControl(String nodeId, Control control, long nowMs, long ttlMs) {
    return new DirectiveClaims(CONTROL, nodeId, control.type(), null, CanonicalJson.sha256(control.body()), null, null,
      false, 0, newNonce(), nowMs / 1000, (nowMs + ttlMs + 999) / 1000, null);
  }

  private static String newNonce() {
    return Digests.base64Url(Digests.randomBytes(16));
  }

  /** Null when the call is exactly what was signed, else what differs (never the values themselves). */
  public String mismatch(ToolCall call, String ownNodeId) {
    if (!CALL.equals(kind)) {
      return "the signature is for a " + kind + ", not a tool call";
    }
    if (!ownNodeId.equals(nodeId) || !ownNodeId.equals(call.nodeId())) {
      return "it was signed for node '" + nodeId + "', not this node ('" + ownNodeId + "')";
    }
    if (!Objects.equals(subject, call.callId())) {
      return "it was signed for another call id";
    }
    if (!Objects.equals(tool, call.tool())) {
      return "it was signed for tool '" + tool + "', not '" + call.tool() + "'";
    }
    if (!Objects.equals(principal, call.principal()) || !Objects.equals(idempotencyKey, call.idempotencyKey())
      || stream != call.stream()) {
      return "its caller, idempotency key or stream flag differ from what was signed";
    }
    if (!Objects.equals(digest, CanonicalJson.sha256(call.args()))) {
      return "its arguments differ from the signed ones (SHA-256 mismatch)";
    }
    return null;
  }

  public String mismatch(Control control, String ownNodeId) {
    if (!CONTROL.equals(kind)) {
      return "the signature is for a " + kind + ", not a control instruction";
    }
    if (!ownNodeId.equals(nodeId)) {
      return "it was signed for node '" + nodeId + "', not this node ('" + ownNodeId + "')";
    }
    if (!Objects.equals(subject, control.type())) {
      return "it was signed for control '" + subject + "', not '" + control.type() + "'";
    }
    if (!Objects.equals(digest, CanonicalJson.sha256(control.body()))) {
      return "its body differs from the signed one (SHA-256 mismatch)";
    }
    return null;
  }

  public JsonObject toJson() {
    return new JsonObject().put("iss", "fleetbus-hub").put("typ", kind).put("nid", nodeId).put("sub", subject)
      .put("tool", tool).put("dig", digest).put("prn", principal).put("idem", idempotencyKey).put("str", stream)
      .put("tier", tier).put("jti", nonce).put("iat", issuedAt).put("exp", expiresAt).put("ins", instanceId);
  }

  /** Reads claims; a missing or mistyped field becomes IllegalArgumentException. */
  public static DirectiveClaims fromJson(JsonObject j) {
    try {
      String kind = j.getString("typ");
      String nonce = j.getString("jti");
      Long exp = j.getLong("exp");
      Long iat = j.getLong("iat");
      if (kind == null || nonce == null || exp == null || iat == null || j.getString("nid") == null) {
        throw new IllegalArgumentException("claims typ, nid, jti, iat and exp are required");
      }
      return new DirectiveClaims(kind, j.getString("nid"), j.getString("sub"), j.getString("tool"), j.getString("dig"),
        j.getString("prn"), j.getString("idem"), j.getBoolean("str", false), j.getInteger("tier", 0), nonce, iat, exp,
        j.getString("ins"));
    } catch (ClassCastException e) {
      throw new IllegalArgumentException("a claim has the wrong type", e);
    }
  }
}
