package io.fleetbus.hub.enrollment;

import io.fleetbus.shared.msg.NodeHello;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * Who may be a node, as the rest of the hub asks it: admit a hello (an enrollment token spent, or the node's credential
 * proved), make a one-time enrollment token, rotate a node's credential, revoke a node. Served by
 * {@link EnrollmentVerticle}, which alone holds the credential hashes; reached through {@link EnrollmentBus#client}.
 * Refusals carry their {@link io.fleetbus.shared.bus.FailureCode}: 400 for a malformed request, 401 for a hello or
 * answer that proves nothing, 404 for a node that is not enrolled.
 */
public interface EnrollmentService {

  /** The yes to a hello: the key the node proves itself with and, when it enrolls now, its credential sealed for it. */
  Future<HelloAdmission> admit(NodeHello hello);

  /**
   * A one-time enrollment token, for {@code nodeId} only (any id when null), valid {@code ttlMinutes} (the hub's
   * default when null): {@code {token, tokenId, nodeId, expiresAt}}; the token itself is in this answer only.
   */
  Future<JsonObject> createToken(String nodeId, Long ttlMinutes, String by);

  /** A new credential for the node, switched to once the node proves it holds it: {@code {nodeId, rotatedAt, ...}}. */
  Future<JsonObject> rekey(String nodeId, String by);

  /** Revokes the node's credential and forgets its registration: {@code {nodeId, revoked: true}}; 404 if unknown. */
  Future<JsonObject> revoke(String nodeId, String by);
}
