package io.fleetbus.hub.enrollment;

/**
 * The enrollment verticle's yes to a hello (hub-local only): the key the node proves with, and at
 * enrollment the sealed credential for the answer.
 */
public record HelloAdmission(String nodeId, byte[] key, String sealedCredential, String hubPublicKey, boolean enrolled) {

  @Override
  public String toString() {
    return "HelloAdmission[nodeId=" + nodeId + ", enrolled=" + enrolled + "]";
  }
}
