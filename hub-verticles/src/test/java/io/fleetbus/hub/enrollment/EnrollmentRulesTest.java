package io.fleetbus.hub.enrollment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Enrollment tokens are one-time, expire, and live in the database only as hashes. */
class EnrollmentRulesTest {
  @TempDir
  Path dir;
  private final String token = Digests.randomSecret("fbe_");
  private final byte[] hash = NodeProofs.keyOf(token);

  private NodeHello hello(String nodeId, String method, byte[] key, String purpose, long sentAt) {
    NodeHello h = new NodeHello(nodeId, "i1", "m1", "linux", "sudo", new JsonObject(), "0.1.0", List.of(),
      new JsonObject().put("method", method).put("tokenId", NodeProofs.tokenId(hash)).put("sentAt", sentAt).put("nonce", "x"));
    return h.withAuth(h.auth().copy().put("proof", NodeProofs.prove(key, purpose, NodeProofs.helloContent(h))));
  }

  private static String refusal(Runnable check) {
    return assertThrows(FleetException.class, check::run).getMessage();
  }

  @Test
  void tokensAreOneTimeAndStoredAsHashesOnly() throws Exception {
    long now = System.currentTimeMillis();
    Path db = dir.resolve("fleetbus.db");
    try (CredentialStore store = new CredentialStore(db)) {
      store.insert(new EnrollmentToken(NodeProofs.tokenId(hash), hash, "n1", "admin", now, now + 60_000, 0, null, null));
      EnrollmentToken row = store.token(NodeProofs.tokenId(hash));
      assertArrayEquals(hash, row.hash());
      String credential = Digests.randomSecret("fbc_");
      NodeCredential c = new NodeCredential("n1", NodeProofs.keyOf(credential), null, 0, now, now);
      assertTrue(store.enroll(row.tokenId(), "i1", c));
      assertFalse(store.enroll(row.tokenId(), "i2", c), "a spent token enrolls no other process");
      assertTrue(store.enroll(row.tokenId(), "i1", c), "the process whose answer was lost may try again");
      EnrollmentToken spent = store.token(row.tokenId());
      HelloChecks.enrollment(hello("n1", "enroll", hash, NodeProofs.ENROLL, now), spent, now);
      assertTrue(refusal(() -> HelloChecks.enrollment(hello("n1", "enroll", hash, NodeProofs.ENROLL, now), spent,
        now + EnrollmentToken.RETRY_WINDOW_MS + 1)).contains("already used by node 'n1'"));
      EnrollmentToken otherProcess = new EnrollmentToken(spent.tokenId(), hash, "n1", "admin", now, now + 60_000,
        spent.usedAt(), "n1", "i0");
      assertTrue(refusal(() -> HelloChecks.enrollment(hello("n1", "enroll", hash, NodeProofs.ENROLL, now), otherProcess, now))
        .contains("already used by node 'n1'"));
      assertEquals(1, store.credentials().size());
      String files = Files.readString(db, StandardCharsets.ISO_8859_1)
        + (Files.exists(dir.resolve("fleetbus.db-wal")) ? Files.readString(dir.resolve("fleetbus.db-wal"), StandardCharsets.ISO_8859_1) : "");
      assertFalse(files.contains(token), "the token is not in the database");
      assertFalse(files.contains(credential), "the credential is not in the database");
      store.revoke("n1", now);
      assertEquals(0, store.credentials().size());
    }
  }

  @Test
  void aTokenWithdrawnAfterAHalfFailedCreationEnrollsNobody() throws Exception {
    long now = System.currentTimeMillis();
    try (CredentialStore store = new CredentialStore(dir.resolve("fleetbus.db"))) {
      String tokenId = NodeProofs.tokenId(hash);
      store.insert(new EnrollmentToken(tokenId, hash, null, "admin", now, now + 60_000, 0, null, null));
      store.withdraw(tokenId, now);
      EnrollmentToken withdrawn = store.token(tokenId);
      assertTrue(withdrawn.used());
      assertEquals(CredentialStore.WITHDRAWN, withdrawn.usedByNode());
      assertFalse(store.enroll(tokenId, "i1", new NodeCredential("n1", NodeProofs.keyOf("c"), null, 0, now, now)));
      assertTrue(refusal(() -> HelloChecks.enrollment(hello("n1", "enroll", hash, NodeProofs.ENROLL, now), withdrawn, now))
        .contains("already used"));
      store.withdraw("no-such-token", now); // a creation whose disk write failed: nothing to withdraw here
      assertEquals(0, store.credentials().size());
    }
  }

  @Test
  void helloRulesSayWhichOneFailed() {
    long now = System.currentTimeMillis();
    EnrollmentToken fresh = new EnrollmentToken(NodeProofs.tokenId(hash), hash, "n1", "admin", now, now + 60_000, 0, null, null);
    HelloChecks.enrollment(hello("n1", "enroll", hash, NodeProofs.ENROLL, now), fresh, now);
    assertTrue(refusal(() -> HelloChecks.enrollment(hello("n1", "enroll", hash, NodeProofs.ENROLL, now), fresh,
      now + 120_000)).contains("expired"));
    assertTrue(refusal(() -> HelloChecks.enrollment(hello("n2", "enroll", hash, NodeProofs.ENROLL, now), fresh, now))
      .contains("made for node 'n1'"));
    assertTrue(refusal(() -> HelloChecks.enrollment(hello("n1", "enroll", NodeProofs.keyOf("guess"), NodeProofs.ENROLL, now),
      fresh, now)).contains("does not verify"));
    assertTrue(refusal(() -> HelloChecks.enrollment(hello("n1", "enroll", hash, NodeProofs.ENROLL, now), null, now))
      .contains("unknown"));
    assertTrue(refusal(() -> HelloChecks.enrollment(hello("n1", "enroll", hash, NodeProofs.ENROLL, now - 3_600_000),
      fresh, now)).contains("stale"));

    byte[] current = NodeProofs.keyOf("c2");
    byte[] previous = NodeProofs.keyOf("c1");
    NodeCredential rotated = new NodeCredential("n1", current, previous, now + 1000, now, now);
    assertArrayEquals(current, HelloChecks.credential(hello("n1", "credential", current, NodeProofs.HELLO, now), rotated, now));
    assertArrayEquals(previous, HelloChecks.credential(hello("n1", "credential", previous, NodeProofs.HELLO, now), rotated, now),
      "the previous credential still works during the grace");
    assertTrue(refusal(() -> HelloChecks.credential(hello("n1", "credential", previous, NodeProofs.HELLO, now), rotated,
      now + 2000)).contains("does not verify"), "and not after it");
    assertTrue(refusal(() -> HelloChecks.credential(hello("n1", "credential", current, NodeProofs.HELLO, now), null, now))
      .contains("not enrolled"));
  }
}
