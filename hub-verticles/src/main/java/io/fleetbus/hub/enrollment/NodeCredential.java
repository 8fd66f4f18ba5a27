package io.fleetbus.hub.enrollment;

/**
 * A node's credential as the hub keeps it: the SHA-256 of the credential (the key its proofs are checked
 * with), the previous one while the grace after a rekey lasts. Also what the enrollment verticle
 * publishes, hub-locally, to the router and monitor; {@code current == null} means revoked.
 */
public record NodeCredential(String nodeId, byte[] current, byte[] previous, long previousValidUntil, long enrolledAt,
                             long rotatedAt) {

  public static NodeCredential revoked(String nodeId) {
    return new NodeCredential(nodeId, null, null, 0, 0, 0);
  }

  /** The tombstone of a node revoked at {@code at}: its change time is the revocation's. */
  public static NodeCredential revokedAt(String nodeId, long at) {
    return new NodeCredential(nodeId, null, null, 0, 0, at);
  }

  public boolean isRevoked() {
    return current == null;
  }

  @Override
  public String toString() {
    return "NodeCredential[nodeId=" + nodeId + ", rotatedAt=" + rotatedAt + "]";
  }
}
