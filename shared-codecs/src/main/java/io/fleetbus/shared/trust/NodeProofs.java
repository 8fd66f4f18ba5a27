package io.fleetbus.shared.trust;

import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.NodeRegistered;
import io.vertx.core.json.JsonObject;

/**
 * Proofs that a message comes from the holder of a node credential (or enrollment token) without
 * the secret ever crossing the bus: an HMAC-SHA256 over the message's canonical JSON, keyed by the
 * SHA-256 of the secret. The hub stores exactly that hash, so it can check proofs but its database
 * never holds a credential or token.
 */
public final class NodeProofs {
  public static final String ENROLL = "enroll";
  public static final String HELLO = "hello";
  public static final String REGISTERED = "registered";
  public static final String HEARTBEAT = "heartbeat";
  public static final String RESULT = "result";
  public static final String REKEY_ACK = "rekey-ack";
  public static final String GOODBYE = "goodbye";
  /** A node's event on {@code fleet.events} (process.crashed, job.finished …): the hub relays only proven ones. */
  public static final String EVENT = "event";
  /** A chunk of a call's streamed output: the hub relays only chunks its node proved. */
  public static final String CHUNK = "chunk";
  /** A node's answer to a dry check ({@code Control.DRY_RUN}): never mistaken for a call's result. */
  public static final String DRY_RUN = "dry-run";
  /** A node's answer to a refuse_call ({@code Control.REFUSE_CALL}): its journal's word on an approval's decision. */
  public static final String DECISION = "decision";
  /** Headers a proved stream chunk travels with: the node that made it, and its proof. */
  public static final String NODE_HEADER = "fb-node";
  public static final String PROOF_HEADER = "fb-proof";

  private NodeProofs() {
  }

  /** The proof key (and stored hash) of a credential or enrollment token. */
  public static byte[] keyOf(String secret) {
    return Digests.sha256(secret);
  }

  /** The public name of an enrollment token: derived from its hash, so it reveals neither. */
  public static String tokenId(byte[] tokenKey) {
    return Digests.hex(Digests.sha256(tokenKey)).substring(0, 32);
  }

  public static String prove(byte[] key, String purpose, JsonObject content) {
    return Digests.base64Url(Digests.hmac(key, purpose + "\n" + CanonicalJson.of(content)));
  }

  public static boolean verify(byte[] key, String purpose, JsonObject content, String proof) {
    if (key == null || proof == null) {
      return false;
    }
    byte[] given;
    try {
      given = Digests.fromBase64Url(proof);
    } catch (IllegalArgumentException e) {
      return false;
    }
    return Digests.sameBytes(Digests.hmac(key, purpose + "\n" + CanonicalJson.of(content)), given);
  }

  /** A shallow copy of {@code json} without {@code field}: the content a proof covers. */
  public static JsonObject without(JsonObject json, String field) {
    java.util.Map<String, Object> map = new java.util.LinkedHashMap<>(json.getMap());
    map.remove(field);
    return new JsonObject(map);
  }

  /** What a hello's proof covers: the whole hello, its auth block without the proof itself. */
  public static JsonObject helloContent(NodeHello hello) {
    return hello.toJson().put("auth", without(hello.auth(), "proof"));
  }

  /** What the hub's answer proves: the answer itself, bound to the hello it answers. */
  public static JsonObject registeredContent(String nodeId, String instanceId, String helloNonce, NodeRegistered reply) {
    return without(reply.toJson(), "proof").put("nodeId", nodeId).put("instanceId", instanceId).put("nonce", helloNonce);
  }

  /** The sealed-box context of an enrollment answer: only for this node, process and hello. */
  public static String enrollContext(String nodeId, String instanceId, String helloNonce) {
    return nodeId + "|" + instanceId + "|" + helloNonce;
  }
}
