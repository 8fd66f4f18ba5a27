package io.fleetbus.shared.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class SealedBoxAndProofsTest {
  private final byte[] key = NodeProofs.keyOf(Digests.randomSecret("fbc_"));

  @Test
  void boxOpensOnlyWithTheSameKeyAndContext() {
    JsonObject secret = new JsonObject().put("credential", "fbc_abc");
    String box = SealedBox.seal(key, "enroll", "n1|i1|nonce", secret);
    assertFalse(box.contains("fbc_abc"));
    assertEquals(secret, SealedBox.open(key, "enroll", "n1|i1|nonce", box));
    assertThrows(IllegalArgumentException.class, () -> SealedBox.open(key, "enroll", "n2|i1|nonce", box));
    assertThrows(IllegalArgumentException.class, () -> SealedBox.open(key, "rekey", "n1|i1|nonce", box));
    assertThrows(IllegalArgumentException.class, () -> SealedBox.open(NodeProofs.keyOf("other"), "enroll", "n1|i1|nonce", box));
    assertThrows(IllegalArgumentException.class, () -> SealedBox.open(key, "enroll", "n1|i1|nonce", box.substring(0, 30)));
  }

  @Test
  void proofCoversEveryFieldButItself() {
    JsonObject hb = new JsonObject().put("nodeId", "n1").put("seq", 3).put("metrics", new JsonObject().put("cpu", 1.5));
    String proof = NodeProofs.prove(key, NodeProofs.HEARTBEAT, hb);
    JsonObject withProof = hb.copy().put("proof", proof);
    assertTrue(NodeProofs.verify(key, NodeProofs.HEARTBEAT, NodeProofs.without(withProof, "proof"), proof));
    assertFalse(NodeProofs.verify(key, NodeProofs.RESULT, hb, proof), "a proof for one purpose is not valid for another");
    assertFalse(NodeProofs.verify(key, NodeProofs.HEARTBEAT, hb.copy().put("seq", 4), proof));
    assertFalse(NodeProofs.verify(NodeProofs.keyOf("x"), NodeProofs.HEARTBEAT, hb, proof));
    assertFalse(NodeProofs.verify(key, NodeProofs.HEARTBEAT, hb, "not base64 !"));
    assertFalse(NodeProofs.verify(key, NodeProofs.HEARTBEAT, hb, null));
  }

  @Test
  void tokenIdRevealsNeitherTokenNorKey() {
    String token = Digests.randomSecret("fbe_");
    String id = NodeProofs.tokenId(NodeProofs.keyOf(token));
    assertEquals(32, id.length());
    assertFalse(Digests.hex(NodeProofs.keyOf(token)).startsWith(id));
  }

  /** A stream chunk's data is readable only with the node's key, only for its own call and place in the stream. */
  @Test
  void aSealedChunkOpensOnlyForItsKeyCallAndPlace() {
    byte[] key = Digests.randomBytes(32);
    io.fleetbus.shared.msg.StreamChunk plain = new io.fleetbus.shared.msg.StreamChunk("c1", 3, "stdout", "SECRET line\n", false);
    io.fleetbus.shared.msg.StreamChunk sealed = CallSeal.sealChunk(key, plain);
    assertFalse(sealed.toJson().encode().contains("SECRET"), sealed.toJson().encode());
    assertEquals(plain, CallSeal.openChunk(key, sealed));
    assertThrows(IllegalArgumentException.class, () -> CallSeal.openChunk(Digests.randomBytes(32), sealed));
    assertThrows(IllegalArgumentException.class, () -> CallSeal.openChunk(key,
      new io.fleetbus.shared.msg.StreamChunk("c2", 3, "stdout", sealed.data(), false)), "moved to another call");
    assertThrows(IllegalArgumentException.class, () -> CallSeal.openChunk(key,
      new io.fleetbus.shared.msg.StreamChunk("c1", 4, "stdout", sealed.data(), false)), "moved to another place");
  }
}
