package io.fleetbus.shared.trust;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;

/**
 * Compact JWS (a JWT) with {@code alg: HS256} (RFC 7518): an HMAC-SHA256 under a key only two parties hold. Used for
 * a tool call under the call key of one hub process and one node process ({@link CallKeys}): a few microseconds where
 * an Ed25519 signature and its check cost a few hundred. Thread-safe.
 */
public final class HmacJws {
  private static final String HEADER = Digests.base64Url("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));

  private HmacJws() {
  }

  public static String sign(byte[] key, JsonObject claims) {
    String signingInput = HEADER + "." + Digests.base64Url(claims.encode().getBytes(StandardCharsets.UTF_8));
    return signingInput + "." + Digests.base64Url(Digests.hmac(key, signingInput));
  }

  /** The claims of a token whose MAC checks with {@code key}; nothing else is checked here. */
  public static JsonObject verify(byte[] key, String token) throws EdDsaJws.Invalid {
    int first = token.indexOf('.');
    int last = token.lastIndexOf('.');
    if (first <= 0 || last == first || last == token.length() - 1 || token.indexOf('.', first + 1) != last) {
      throw new EdDsaJws.Invalid("malformed signature: not a compact JWS (header.payload.signature)");
    }
    if (!HEADER.equals(token.substring(0, first))) {
      throw new EdDsaJws.Invalid("a call key signature must have the header {alg: HS256, typ: JWT}");
    }
    byte[] given;
    try {
      given = Digests.fromBase64Url(token.substring(last + 1));
    } catch (IllegalArgumentException e) {
      throw new EdDsaJws.Invalid("malformed signature: not base64url");
    }
    if (!Digests.sameBytes(given, Digests.hmac(key, token.substring(0, last)))) {
      throw new EdDsaJws.Invalid("its MAC does not check with the call key this node process agreed with that hub");
    }
    try {
      return new JsonObject(new String(Digests.fromBase64Url(token.substring(first + 1, last)), StandardCharsets.UTF_8));
    } catch (IllegalArgumentException | DecodeException | ClassCastException e) {
      throw new EdDsaJws.Invalid("malformed signature: its payload is not base64url JSON");
    }
  }
}
