package io.fleetbus.shared.trust;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** SHA-256, HMAC-SHA256, random secrets and their text forms. Stateless and thread-safe. */
public final class Digests {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder B64URL = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64URL_DECODER = Base64.getUrlDecoder();

  private Digests() {
  }

  public static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK lacks SHA-256", e);
    }
  }

  public static byte[] sha256(String text) {
    return sha256(text.getBytes(StandardCharsets.UTF_8));
  }

  public static String sha256Hex(String text) {
    return HexFormat.of().formatHex(sha256(text));
  }

  public static String hex(byte[] data) {
    return HexFormat.of().formatHex(data);
  }

  public static byte[] hmac(byte[] key, String message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(message.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK lacks HmacSHA256", e);
    }
  }

  /** A key for one purpose derived from a secret, so one secret never keys two different jobs. */
  public static byte[] derive(byte[] secret, String purpose) {
    return hmac(secret, "fleetbus-derive:" + purpose);
  }

  /** A fresh random secret as text: {@code prefix} + 256 random bits, base64url. */
  public static String randomSecret(String prefix) {
    return prefix + base64Url(randomBytes(32));
  }

  public static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }

  public static String base64Url(byte[] data) {
    return B64URL.encodeToString(data);
  }

  /** Decodes base64url; throws IllegalArgumentException on anything else. */
  public static byte[] fromBase64Url(String text) {
    return B64URL_DECODER.decode(text);
  }

  /** Compares in time independent of where the first difference is. */
  public static boolean sameBytes(byte[] a, byte[] b) {
    return a != null && b != null && MessageDigest.isEqual(a, b);
  }
}
