package io.fleetbus.hub.enrollment;

/**
 * A one-time enrollment token as the hub keeps it: only its hash (which also keys the node's proof
 * of holding it), who made it, for which node (optional) and until when; used once, then spent.
 */
public record EnrollmentToken(String tokenId, byte[] hash, String nodeId, String createdBy, long createdAt,
                              long expiresAt, long usedAt, String usedByNode) {

  public boolean used() {
    return usedAt > 0;
  }

  @Override
  public String toString() {
    return "EnrollmentToken[tokenId=" + tokenId + ", nodeId=" + nodeId + ", expiresAt=" + expiresAt + "]";
  }
}
