package io.fleetbus.hub.authz;

import io.fleetbus.hub.fuzz.InProcessHub;
import io.fleetbus.shared.trust.Digests;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/** Tokens signed with the hub's own key but with whatever claims an attacker or a sloppy minter chooses. */
final class TokenForge {
  private final JWTAuth raw;

  private TokenForge(JWTAuth raw) {
    this.raw = raw;
  }

  static TokenForge of(InProcessHub hub) {
    try {
      String pem = Files.readString(hub.dir.resolve("keys").resolve("jwt-es256-private.pem"));
      return new TokenForge(JWTAuth.create(hub.vertx, new JWTAuthOptions().addPubSecKey(new PubSecKeyOptions()
        .setAlgorithm("ES256").setBuffer(pem))));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Exactly these claims (no iat added), ES256 with the hub's key. */
  String claims(JsonObject claims) {
    return raw.generateToken(claims, new JWTOptions().setAlgorithm("ES256").setNoTimestamp(true));
  }

  /** A token whose header says {@code alg}, signed (or not) with something that is not the hub's key. */
  static String withAlg(String alg, JsonObject claims) {
    String header = Digests.base64Url(new JsonObject().put("alg", alg).put("typ", "JWT").encode().getBytes(StandardCharsets.UTF_8));
    String body = Digests.base64Url(claims.encode().getBytes(StandardCharsets.UTF_8));
    return header + "." + body + "." + Digests.base64Url("not-a-real-signature".getBytes(StandardCharsets.UTF_8));
  }
}
