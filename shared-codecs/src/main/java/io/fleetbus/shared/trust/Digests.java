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

/**
 * SHA-256, HMAC-SHA256, random secrets and their text forms. Thread-safe: each thread keeps its own digest and MAC
 * engine (looking one up per call was a visible share of a tool call's CPU, issue 17); every use starts from a reset
 * engine, and no call hands one on while it is in use.
 */
public final class Digests {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK lacks SHA-256", e);
    }
  });
  private static final ThreadLocal<Mac> HMAC = ThreadLocal.withInitial(() -> {
    try {
      return Mac.getInstance("HmacSHA256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK lacks HmacSHA256", e);
    }
  });
  private static final Base64.Encoder B64URL = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64URL_DECODER = Base64.getUrlDecoder();

  private Digests() {
  }

  public static byte[] sha256(byte[] data) {
    MessageDigest md = SHA256.get();
    md.reset();
    return md.digest(data);
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
      Mac mac = HMAC.get();
      // init resets the engine, whatever an earlier use on this thread left in it
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
