package io.fleetbus.shared.trust;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Base64;
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
      return new String[] {pem("PRIVATE KEY", pair.getPrivate().getEncoded()), pem("PUBLIC KEY", pair.getPublic().getEncoded())};
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot generate Ed25519 keys", e);
    }
  }

  public static Ed25519PrivateKeyParameters privateKey(String pem) {
    AsymmetricKeyParameter key;
    try {
      key = PrivateKeyFactory.createKey(der(pem, "PRIVATE KEY"));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not a PEM Ed25519 private key: " + e.getMessage(), e);
    }
    if (key instanceof Ed25519PrivateKeyParameters ed) {
      return ed;
    }
    throw new IllegalArgumentException("the private key is not an Ed25519 key");
  }

  public static Ed25519PublicKeyParameters publicKey(String pem) {
    AsymmetricKeyParameter key;
    try {
      key = PublicKeyFactory.createKey(der(pem, "PUBLIC KEY"));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not a PEM Ed25519 public key: " + e.getMessage(), e);
    }
    if (key instanceof Ed25519PublicKeyParameters ed) {
      return ed;
    }
    throw new IllegalArgumentException("the public key is not an Ed25519 key");
  }

  /** A short stable name of a public key (the JWS {@code kid}): lets a node say which key it expected. */
  public static String keyId(Ed25519PublicKeyParameters key) {
    return Digests.hex(Digests.sha256(key.getEncoded())).substring(0, 16);
  }

  static String pem(String type, byte[] der) {
    String b64 = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + b64 + "\n-----END " + type + "-----\n";
  }

  private static byte[] der(String pem, String type) {
    String begin = "-----BEGIN " + type + "-----";
    String end = "-----END " + type + "-----";
    int from = pem.indexOf(begin);
    int to = pem.indexOf(end);
    if (from < 0 || to < from) {
      throw new IllegalArgumentException("no " + type + " PEM block");
    }
    return Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
  }
}
