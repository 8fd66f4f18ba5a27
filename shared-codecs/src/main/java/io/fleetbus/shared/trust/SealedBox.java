package io.fleetbus.shared.trust;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-256-GCM around a JSON object, keyed from a secret both ends already share (an enrollment
 * token's hash, a node's credential hash, the hub's store key). Authenticated: a box nobody with
 * the key made does not open, so it also proves who sent it. {@code context} binds a box to the
 * exchange it belongs to (node, instance, nonce) so it cannot be replayed into another.
 * <p>
 * A tool call seals and opens several boxes (issue 17): each thread keeps one AES-GCM engine, initialised afresh (key,
 * new random IV) for every box, and the key derived for a (secret, purpose) is kept in a bounded cache, so neither
 * the provider lookup nor the key derivation is paid per box.
 */
public final class SealedBox {
  private static final int IV_BYTES = 12;
  private static final int MAX_KEYS = 4096;
  private static final ThreadLocal<Cipher> GCM = ThreadLocal.withInitial(() -> {
    try {
      return Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available", e);
    }
  });
  /** Derived keys by (secret, purpose); emptied when full (a hub holds one per node, fleets beyond that re-derive). */
  private static final Map<KeyOf, SecretKeySpec> KEYS = new ConcurrentHashMap<>();

  /** A secret (compared by content) and the purpose a key is derived for. */
  private record KeyOf(ByteBuffer secret, String purpose) {
  }

  private SealedBox() {
  }

  public static String seal(byte[] secret, String purpose, String context, JsonObject content) {
    try {
      byte[] iv = Digests.randomBytes(IV_BYTES);
      Cipher cipher = cipher(Cipher.ENCRYPT_MODE, secret, purpose, iv);
      cipher.updateAAD(context.getBytes(StandardCharsets.UTF_8));
      byte[] sealed = cipher.doFinal(content.encode().getBytes(StandardCharsets.UTF_8));
      byte[] out = new byte[IV_BYTES + sealed.length];
      System.arraycopy(iv, 0, out, 0, IV_BYTES);
      System.arraycopy(sealed, 0, out, IV_BYTES, sealed.length);
      return Digests.base64Url(out);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available", e);
    }
  }

  /** The content, or IllegalArgumentException when the box is damaged or was sealed with another key or context. */
  public static JsonObject open(byte[] secret, String purpose, String context, String box) {
    byte[] in;
    try {
      in = Digests.fromBase64Url(box);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException("sealed box is not base64url");
    }
    if (in.length <= IV_BYTES + 16) {
      throw new IllegalArgumentException("sealed box is too short");
    }
    try {
      byte[] iv = java.util.Arrays.copyOf(in, IV_BYTES);
      Cipher cipher = cipher(Cipher.DECRYPT_MODE, secret, purpose, iv);
      cipher.updateAAD(context.getBytes(StandardCharsets.UTF_8));
      byte[] plain = cipher.doFinal(in, IV_BYTES, in.length - IV_BYTES);
      return new JsonObject(new String(plain, StandardCharsets.UTF_8));
    } catch (AEADBadTagException e) {
      throw new IllegalArgumentException("sealed box does not open with this key (wrong secret, or not made by its holder)");
    } catch (GeneralSecurityException | DecodeException e) {
      throw new IllegalArgumentException("sealed box is damaged: " + e.getMessage());
    }
  }

  private static Cipher cipher(int mode, byte[] secret, String purpose, byte[] iv) throws GeneralSecurityException {
    Cipher cipher = GCM.get();
    // a fresh init for every box: whatever an earlier box (or a failed open) left in the engine is gone
    cipher.init(mode, key(secret, purpose), new GCMParameterSpec(128, iv));
    return cipher;
  }

  private static SecretKeySpec key(byte[] secret, String purpose) {
    SecretKeySpec known = KEYS.get(new KeyOf(ByteBuffer.wrap(secret), purpose));
    if (known != null) {
      return known;
    }
    SecretKeySpec derived = new SecretKeySpec(Digests.derive(secret, "seal:" + purpose), "AES");
    if (KEYS.size() >= MAX_KEYS) {
      KEYS.clear();
    }
    // the cache keeps its own copy of the secret: a caller that reuses its array cannot change an entry
    KEYS.put(new KeyOf(ByteBuffer.wrap(secret.clone()), purpose), derived);
    return derived;
  }
}
