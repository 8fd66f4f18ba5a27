package io.fleetbus.shared.trust;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * Compact JWS (a JWT) signed with Ed25519, {@code alg: EdDSA} (RFC 8037): any JOSE library can
 * check what this class signs. Thread-safe: each call uses its own signer object.
 */
public final class EdDsaJws {
  private EdDsaJws() {
  }

  /** Why a token was refused, in words a person can act on. */
  public static final class Invalid extends Exception {
    private static final long serialVersionUID = 1L;

    public Invalid(String message) {
      super(message, null, false, false);
    }
  }

  public static String sign(Ed25519PrivateKeyParameters key, String keyId, JsonObject claims) {
    String header = Digests.base64Url(new JsonObject().put("alg", "EdDSA").put("typ", "JWT").put("kid", keyId)
      .encode().getBytes(StandardCharsets.UTF_8));
    String signingInput = header + "." + Digests.base64Url(claims.encode().getBytes(StandardCharsets.UTF_8));
    byte[] input = signingInput.getBytes(StandardCharsets.US_ASCII);
    Ed25519Signer signer = new Ed25519Signer();
    signer.init(true, key);
    signer.update(input, 0, input.length);
    return signingInput + "." + Digests.base64Url(signer.generateSignature());
  }

  /** The claims of a token whose signature verifies with {@code key}; nothing else is checked here. */
  public static JsonObject verify(Ed25519PublicKeyParameters key, String token) throws Invalid {
    if (token == null || token.isEmpty()) {
      throw new Invalid("no signature");
    }
    int first = token.indexOf('.');
    int last = token.lastIndexOf('.');
    if (first <= 0 || last == first || last == token.length() - 1 || token.indexOf('.', first + 1) != last) {
      throw new Invalid("malformed signature: not a compact JWS (header.payload.signature)");
    }
    JsonObject header = json(token.substring(0, first), "header");
    if (!"EdDSA".equals(header.getString("alg"))) {
      throw new Invalid("signature algorithm '" + header.getValue("alg") + "' is not EdDSA");
    }
    byte[] signature;
    try {
      signature = Digests.fromBase64Url(token.substring(last + 1));
    } catch (IllegalArgumentException e) {
      throw new Invalid("malformed signature: not base64url");
    }
    byte[] input = token.substring(0, last).getBytes(StandardCharsets.US_ASCII);
    Ed25519Signer verifier = new Ed25519Signer();
    verifier.init(false, key);
    verifier.update(input, 0, input.length);
    if (signature.length != 64 || !verifier.verifySignature(signature)) {
      String kid = header.getString("kid");
      throw new Invalid("signature does not verify with the hub key this node trusts (key " + Ed25519Keys.keyId(key)
        + (kid == null ? "" : ", token names key " + kid) + ")");
    }
    return json(token.substring(first + 1, last), "payload");
  }

  private static JsonObject json(String part, String what) throws Invalid {
    try {
      return new JsonObject(new String(Digests.fromBase64Url(part), StandardCharsets.UTF_8));
    } catch (IllegalArgumentException | DecodeException | ClassCastException e) {
      throw new Invalid("malformed signature: its " + what + " is not base64url JSON");
    }
  }
}
