package io.fleetbus.hub.enrollment;

/**
 * A one-time enrollment token as the hub keeps it: only its hash (which also keys the node's proof
 * of holding it), who made it, for which node (optional) and until when; used once, then spent.
 */
public record EnrollmentToken(String tokenId, byte[] hash, String nodeId, String createdBy, long createdAt,
                              long expiresAt, long usedAt, String usedByNode, String usedByInstance) {

  /** How long the node process that spent a token may enroll with it again (its answer was lost). */
  public static final long RETRY_WINDOW_MS = 120_000;

  public boolean used() {
    return usedAt > 0;
  }

  /** Whether this hello is the same node process retrying an enrollment whose answer never reached it. */
  public boolean retriedBy(String nodeId, String instanceId, long now) {
    return used() && nodeId.equals(usedByNode) && instanceId != null && instanceId.equals(usedByInstance)
      && now - usedAt < RETRY_WINDOW_MS;
  }

  @Override
  public String toString() {
    return "EnrollmentToken[tokenId=" + tokenId + ", nodeId=" + nodeId + ", expiresAt=" + expiresAt + "]";
  }
}
