package io.fleetbus.shared.trust;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.crypto.util.PublicKeyFactory;

/**
 * Ed25519 keys as standard PEM (PKCS#8 / SubjectPublicKeyInfo, readable by OpenSSL and vertx-auth)
 * and as the parsed objects the signer and verifier keep. Parse once, keep the result.
 */
public final class Ed25519Keys {
  private Ed25519Keys() {
  }

  /** A new key pair as {privatePem, publicPem}. */
  public static String[] generatePem() {
    try {
      KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
      return new String[] {Pem.encode("PRIVATE KEY", pair.getPrivate().getEncoded()),
        Pem.encode("PUBLIC KEY", pair.getPublic().getEncoded())};
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot generate Ed25519 keys", e);
    }
  }

  public static Ed25519PrivateKeyParameters privateKey(String pem) {
    return parse(pem, "PRIVATE KEY", Ed25519PrivateKeyParameters.class, PrivateKeyFactory::createKey);
  }

  public static Ed25519PublicKeyParameters publicKey(String pem) {
    return parse(pem, "PUBLIC KEY", Ed25519PublicKeyParameters.class, PublicKeyFactory::createKey);
  }

  private interface Parser {
    AsymmetricKeyParameter parse(byte[] der) throws IOException;
  }

  private static <T> T parse(String pem, String type, Class<T> want, Parser parser) {
    AsymmetricKeyParameter key;
    try {
      key = parser.parse(Pem.decode(pem, type));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not a PEM Ed25519 " + type.toLowerCase(java.util.Locale.ROOT) + ": "
        + e.getMessage(), e);
    }
    if (!want.isInstance(key)) {
      throw new IllegalArgumentException("the " + type.toLowerCase(java.util.Locale.ROOT) + " is not an Ed25519 key");
    }
    return want.cast(key);
  }

  /** A short stable name of a public key (the JWS {@code kid}): lets a node say which key it expected. */
  public static String keyId(Ed25519PublicKeyParameters key) {
    return Digests.hex(Digests.sha256(key.getEncoded())).substring(0, 16);
  }
}
