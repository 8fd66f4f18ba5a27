package io.fleetbus.hub.enrollment;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.trust.NodeProofs;
import java.time.Instant;

/**
 * The rules a hello must pass, without storage or bus: a fresh proof made with an unspent, unexpired
 * enrollment token for this node, or with the node's current (or, within the grace, previous)
 * credential. Every refusal is a 401 that says which rule failed.
 */
final class HelloChecks {
  /** Clocks of hub and node machines may differ this much. */
  static final long MAX_CLOCK_SKEW_MS = 5 * 60_000;

  private HelloChecks() {
  }

  static void enrollment(NodeHello hello, EnrollmentToken token, long now) {
    String nodeId = hello.nodeId();
    if (token == null) {
      throw refused(nodeId, "its enrollment token is unknown to this hub (create one with POST /api/v1/enrollments)");
    }
    if (token.used() && !token.retriedBy(nodeId, hello.instanceId(), now)) {
      throw refused(nodeId, "its enrollment token was already used" + (token.usedByNode() == null ? "" : " by node '"
        + token.usedByNode() + "'") + " at " + Instant.ofEpochMilli(token.usedAt()) + "; tokens are one-time: create a new one");
    }
    if (token.expiresAt() <= now) {
      throw refused(nodeId, "its enrollment token expired at " + Instant.ofEpochMilli(token.expiresAt()) + "; create a new one");
    }
    if (token.nodeId() != null && !token.nodeId().equals(nodeId)) {
      throw refused(nodeId, "its enrollment token was made for node '" + token.nodeId() + "'");
    }
    proof(hello, token.hash(), NodeProofs.ENROLL, "the enrollment proof does not verify (wrong token?)", now);
  }

  /** The key the hello was proved with (current, or previous within the grace). */
  static byte[] credential(NodeHello hello, NodeCredential credential, long now) {
    if (credential == null || credential.isRevoked()) {
      throw refused(hello.nodeId(), "node '" + hello.nodeId() + "' is not enrolled (or was revoked): start it with an"
        + " enrollment token (POST /api/v1/enrollments, then FLEETBUS_ENROLLMENT_TOKEN)");
    }
    fresh(hello, now);
    String proof = hello.auth().getString("proof");
    var content = NodeProofs.helloContent(hello);
    if (NodeProofs.verify(credential.current(), NodeProofs.HELLO, content, proof)) {
      return credential.current();
    }
    if (credential.previous() != null && now < credential.previousValidUntil()
      && NodeProofs.verify(credential.previous(), NodeProofs.HELLO, content, proof)) {
      return credential.previous();
    }
    throw refused(hello.nodeId(), "its credential proof does not verify (credential rotated or wrong)");
  }

  private static void proof(NodeHello hello, byte[] key, String purpose, String failure, long now) {
    fresh(hello, now);
    if (!NodeProofs.verify(key, purpose, NodeProofs.helloContent(hello), hello.auth().getString("proof"))) {
      throw refused(hello.nodeId(), failure);
    }
  }

  private static void fresh(NodeHello hello, long now) {
    Long sentAt = hello.auth().getLong("sentAt");
    if (sentAt == null || Math.abs(now - sentAt) > MAX_CLOCK_SKEW_MS) {
      throw refused(hello.nodeId(), "its hello is stale or from the future (are the clocks in sync?)");
    }
    if (hello.auth().getString("nonce") == null) {
      throw refused(hello.nodeId(), "its hello carries no nonce");
    }
  }

  static io.fleetbus.shared.bus.FleetException refused(String nodeId, String why) {
    return FailureCode.UNAUTHORIZED.exception("hello of node '" + nodeId + "' refused: " + why);
  }
}
