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

  /** Keys are cached by content and engines reused per thread: neither may let a box open with another secret. */
  @Test
  void reusedEnginesAndCachedKeysStillTellSecretsApart() throws Exception {
    byte[] mutable = key.clone();
    JsonObject content = new JsonObject().put("n", 1);
    String box = SealedBox.seal(mutable, "p", "ctx", content);
    // the caller's array changes after use: the cached key must not follow it (nor keep opening with it)
    mutable[0] ^= 1;
    assertThrows(IllegalArgumentException.class, () -> SealedBox.open(mutable, "p", "ctx", box));
    assertEquals(content, SealedBox.open(key, "p", "ctx", box), "a failed open leaves the engine usable");
    // the same content twice: fresh IVs, two different boxes that both open
    assertFalse(box.equals(SealedBox.seal(key, "p", "ctx", content)));
    // many threads sealing and opening under different secrets at once
    java.util.List<Thread> threads = new java.util.ArrayList<>();
    java.util.concurrent.atomic.AtomicInteger wrong = new java.util.concurrent.atomic.AtomicInteger();
    for (int t = 0; t < 4; t++) {
      byte[] mine = Digests.randomBytes(32);
      threads.add(new Thread(() -> {
        for (int i = 0; i < 500; i++) {
          JsonObject c = new JsonObject().put("i", i);
          String b = SealedBox.seal(mine, "p", "c" + i, c);
          if (!c.equals(SealedBox.open(mine, "p", "c" + i, b)) || opens(key, b, "c" + i)
            || !Digests.sameBytes(Digests.hmac(mine, "m" + i), Digests.hmac(mine.clone(), "m" + i))) {
            wrong.incrementAndGet();
          }
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(0, wrong.get());
  }

  private static boolean opens(byte[] secret, String box, String context) {
    try {
      SealedBox.open(secret, "p", context, box);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
