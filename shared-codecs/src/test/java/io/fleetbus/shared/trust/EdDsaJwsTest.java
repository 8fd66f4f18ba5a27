package io.fleetbus.shared.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.User;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.junit.jupiter.api.Test;

/** Real keys; interoperability checked against vertx-auth-jwt, an independent JOSE implementation. */
class EdDsaJwsTest {
  private final String[] pems = Ed25519Keys.generatePem();
  private final Ed25519PrivateKeyParameters priv = Ed25519Keys.privateKey(pems[0]);
  private final Ed25519PublicKeyParameters pub = Ed25519Keys.publicKey(pems[1]);

  @Test
  void signedClaimsVerifyAndComeBackEqual() throws Exception {
    JsonObject claims = new JsonObject().put("sub", "call-1").put("exp", 99L);
    assertEquals(claims, EdDsaJws.verify(pub, EdDsaJws.sign(priv, Ed25519Keys.keyId(pub), claims)));
  }

  @Test
  void tamperedPayloadOrOtherKeyIsRefused() {
    String token = EdDsaJws.sign(priv, "k", new JsonObject().put("dig", "aa"));
    String[] parts = token.split("\\.");
    String forged = parts[0] + "." + Digests.base64Url("{\"dig\":\"bb\"}".getBytes()) + "." + parts[2];
    EdDsaJws.Invalid e = assertThrows(EdDsaJws.Invalid.class, () -> EdDsaJws.verify(pub, forged));
    assertTrue(e.getMessage().contains("does not verify"), e.getMessage());
    Ed25519PublicKeyParameters other = Ed25519Keys.publicKey(Ed25519Keys.generatePem()[1]);
    assertThrows(EdDsaJws.Invalid.class, () -> EdDsaJws.verify(other, token));
    assertTrue(assertThrows(EdDsaJws.Invalid.class, () -> EdDsaJws.verify(pub, "abc")).getMessage().contains("malformed"));
    assertTrue(assertThrows(EdDsaJws.Invalid.class, () -> EdDsaJws.verify(pub, null)).getMessage().contains("no signature"));
  }

  @Test
  void unsignedAlgNoneIsRefused() {
    String none = Digests.base64Url("{\"alg\":\"none\"}".getBytes()) + "." + Digests.base64Url("{}".getBytes()) + ".AAAA";
    assertTrue(assertThrows(EdDsaJws.Invalid.class, () -> EdDsaJws.verify(pub, none)).getMessage().contains("not EdDSA"));
  }

  @Test
  void vertxAuthJwtAgreesBothWays() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      JWTAuth verifier = JWTAuth.create(vertx, new JWTAuthOptions()
        .addPubSecKey(new PubSecKeyOptions().setAlgorithm("EdDSA").setBuffer(pems[1])));
      String ours = EdDsaJws.sign(priv, "k", new JsonObject().put("sub", "x").put("exp", System.currentTimeMillis() / 1000 + 60));
      User user = verifier.authenticate(new TokenCredentials(ours)).toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
      assertEquals("x", user.principal().getString("sub"));

      JWTAuth signer = JWTAuth.create(vertx, new JWTAuthOptions()
        .addPubSecKey(new PubSecKeyOptions().setAlgorithm("EdDSA").setBuffer(pems[0])));
      String theirs = signer.generateToken(new JsonObject().put("sub", "y"), new JWTOptions().setAlgorithm("EdDSA"));
      assertEquals("y", EdDsaJws.verify(pub, theirs).getString("sub"));
    } finally {
      vertx.close();
    }
  }
}
