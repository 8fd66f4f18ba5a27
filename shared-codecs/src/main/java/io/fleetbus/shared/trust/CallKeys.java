package io.fleetbus.shared.trust;

import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.params.HKDFParameters;
import org.bouncycastle.crypto.params.X25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.X25519PublicKeyParameters;

/**
 * Call keys (issue 17): a tool call is signed with an HMAC under a key that one hub process and one node process
 * agreed on, instead of an Ed25519 signature per call (its check was half of a node's CPU per call).
 * <ul>
 *   <li>A node process makes an X25519 key pair when it starts and keeps the private half in memory only. Its
 *       instance id is its public key ({@value #INSTANCE_PREFIX} + base64url), so every hello, registration and
 *       hub already carries it, covered by the node's proof.</li>
 *   <li>A hub process has its own X25519 key pair. For each node process it calls, it signs a <em>grant</em> with the
 *       fleet's Ed25519 directive key, once: {@code {typ: call-key, nid, ins, hpk (the hub's X25519 public key), iat,
 *       exp}}. Both ends derive the same key: HKDF-SHA256 over X25519(own private, other's public), bound to the
 *       node id, the instance id and the hub key.</li>
 *   <li>A call's signature is {@code <grant>~<HS256 JWS of the same claims as before>}. The node checks the grant
 *       with the hub key it pinned at enrollment (once, then cached) and the MAC per call.</li>
 * </ul>
 * What a cluster member without the hub's key can do is unchanged: it can replay a grant it saw, but without the hub
 * process's or the node process's private key it cannot compute the MAC, and a grant it signs itself does not
 * verify. The key is never on disk: a copied node data folder gives nothing. Controls stay Ed25519 (they are rare).
 */
public final class CallKeys {
  /** How an instance id that is a call-key public key begins (version 1). */
  public static final String INSTANCE_PREFIX = "ck1-";
  /** Between the grant and the per-call JWS in a call's signature: not a base64url or JWS character. */
  public static final char SEPARATOR = '~';
  public static final String GRANT_TYPE = "call-key";
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final byte[] SALT = "fleetbus call key v1".getBytes(StandardCharsets.US_ASCII);

  private CallKeys() {
  }

  public static X25519PrivateKeyParameters newKey() {
    return new X25519PrivateKeyParameters(RANDOM);
  }

  public static String publicText(X25519PrivateKeyParameters key) {
    return Digests.base64Url(key.generatePublicKey().getEncoded());
  }

  /** The instance id of a node process holding {@code key}. */
  public static String instanceId(X25519PrivateKeyParameters key) {
    return INSTANCE_PREFIX + publicText(key);
  }

  /** The X25519 public key an instance id carries; null for any other instance id (an older node, a simulator). */
  public static X25519PublicKeyParameters publicKeyOf(String instanceId) {
    return instanceId != null && instanceId.startsWith(INSTANCE_PREFIX)
      ? publicKey(instanceId.substring(INSTANCE_PREFIX.length())) : null;
  }

  /** A base64url X25519 public key; null when it is not one. */
  public static X25519PublicKeyParameters publicKey(String text) {
    try {
      byte[] raw = text == null ? null : Digests.fromBase64Url(text);
      return raw == null || raw.length != X25519PublicKeyParameters.KEY_SIZE ? null : new X25519PublicKeyParameters(raw);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * The call key of hub key {@code hubPublic} and node process {@code instanceId} of {@code nodeId}, from
   * {@code own}'s side; IllegalArgumentException when the other key is a degenerate point (no shared secret).
   */
  public static byte[] derive(X25519PrivateKeyParameters own, X25519PublicKeyParameters other, String nodeId,
                              String instanceId, String hubPublic) {
    byte[] shared = new byte[X25519PrivateKeyParameters.SECRET_SIZE];
    try {
      own.generateSecret(other, shared, 0);
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException("the other side's X25519 key gives no shared secret");
    }
    HKDFBytesGenerator hkdf = new HKDFBytesGenerator(new SHA256Digest());
    hkdf.init(new HKDFParameters(shared, SALT,
      ("call-key\n" + nodeId + "\n" + instanceId + "\n" + hubPublic).getBytes(StandardCharsets.UTF_8)));
    byte[] key = new byte[32];
    hkdf.generateBytes(key, 0, key.length);
    java.util.Arrays.fill(shared, (byte) 0);
    return key;
  }

  /** What a hub signs to offer node process {@code instanceId} a call key with its X25519 key {@code hubPublic}. */
  public static JsonObject grantClaims(String nodeId, String instanceId, String hubPublic, long nowMs, long ttlMs) {
    return new JsonObject().put("iss", "fleetbus-hub").put("typ", GRANT_TYPE).put("nid", nodeId).put("ins", instanceId)
      .put("hpk", hubPublic).put("iat", nowMs / 1000).put("exp", (nowMs + ttlMs) / 1000);
  }
}
