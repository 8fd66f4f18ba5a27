package io.fleetbus.hub.enrollment;

import io.fleetbus.hub.audit.AuditEntry;
import io.fleetbus.hub.auth.TrustSettings;
import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.store.GroupCommit;
import io.fleetbus.hub.store.Transactions;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.ControlOrder;
import io.fleetbus.shared.msg.NodeControl;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.NodeProofs;
import io.fleetbus.shared.trust.SealedBox;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may be a node, served as {@link EnrollmentService}: makes one-time enrollment tokens (and the local node's token
 * file, {@link LocalNodeToken}), admits hellos ({@link Admission}: enrollment by token, or proof of the credential),
 * rotates and revokes credentials, and keeps the proof keys current in every keyring of this hub
 * ({@link CredentialsInForce}). State — the credential hashes — is confined here (its helpers run on this verticle's
 * event loop), stored in SQLite and shared with the fleet's other hubs ({@link SharedCredentials}).
 */
public final class EnrollmentVerticle extends VerticleBase implements EnrollmentService {
  private static final Logger LOG = LoggerFactory.getLogger(EnrollmentVerticle.class);
  /** At most this many writes in one transaction (a hello storm's batches are the enrollments in flight). */
  private static final int WRITES_PER_BATCH = 512;

  private final Path dbFile;
  private final Path dataDir;
  private final String hubPublicKey;
  private final TrustSettings settings;
  private final SharedCredentials shared;
  private final Registrations registrations;
  private CredentialsInForce credentials;
  private LocalNodeToken localToken;
  private Admission admission;
  private CredentialStore store;
  /** Token, credential and revocation writes, in group commit (a hello storm's tokens and enrollments batched). */
  private GroupCommit<Transactions.Step<CredentialStore>> writes;

  /** @param registrations forgets a revoked node's registration (the registry, handed in by the hub's wiring) */
  public EnrollmentVerticle(Path dbFile, Path dataDir, String hubPublicKey, TrustSettings settings, FleetState fleet,
                            Registrations registrations) {
    this.shared = new SharedCredentials(fleet);
    this.registrations = registrations;
    this.dbFile = dbFile;
    this.dataDir = dataDir;
    this.hubPublicKey = hubPublicKey;
    this.settings = settings;
  }

  @Override
  public Future<?> start() {
    credentials = new CredentialsInForce(vertx);
    localToken = new LocalNodeToken(vertx, dataDir.resolve(LocalNodeToken.FILE_NAME), settings.localNodeId());
    java.util.Map<String, Long> revoked = new java.util.HashMap<>();
    return vertx.executeBlocking(() -> {
      store = new CredentialStore(dbFile);
      revoked.putAll(store.revocations());
      return store.credentials();
    }).compose(loaded -> {
      loaded.forEach(credentials::put);
      LOG.info("credentials loaded [nodes: {}]", loaded.size());
      writes = new GroupCommit<>(vertx, "credentials", 0, WRITES_PER_BATCH, store::apply);
      admission = new Admission(context, store, writes, shared, credentials, hubPublicKey, localToken);
      return shared.join(context, loaded, revoked, this::applyShared);
    }).compose(v -> EnrollmentBus.serve(vertx, this))
      .compose(v -> settings.localNodeId() == null ? Future.succeededFuture() : writeLocalNodeToken());
  }

  @Override
  public Future<?> stop() {
    if (store == null) {
      return Future.succeededFuture();
    }
    return (writes == null ? Future.succeededFuture() : writes.drain()).eventually(() -> vertx.executeBlocking(() -> {
      store.close();
      return null;
    }));
  }

  /** A credential another hub enrolled, rotated or revoked: stored here too, and in force at once. */
  private void applyShared(NodeCredential c) {
    writes.commit(s -> {
      if (c.isRevoked()) {
        s.revoke(c.nodeId(), c.rotatedAt());
      } else {
        s.save(c);
      }
    }).onSuccess(v -> {
      if (c.isRevoked()) {
        credentials.revoke(c.nodeId());
        registrations.forget(c.nodeId())
          .onFailure(err -> LOG.warn("registry did not forget a node revoked by another hub [node: {}]", c.nodeId(), err));
      } else {
        credentials.put(c);
      }
      LOG.info("credential changed by another hub [node: {}, revoked: {}]", c.nodeId(), c.isRevoked());
    }).onFailure(err -> LOG.error("cannot store a credential shared by another hub [node: {}]", c.nodeId(), err));
  }

  /** The embedded default: the local node's token file, while that node is not enrolled. */
  private Future<Void> writeLocalNodeToken() {
    if (credentials.has(settings.localNodeId())) {
      return localToken.remove();
    }
    return createToken(settings.localNodeId(), settings.enrollmentTtlMinutes(), "hub")
      .compose(t -> localToken.write(t.getString("token")));
  }

  @Override
  public Future<JsonObject> createToken(String nodeId, Long ttl, String by) {
    long ttlMinutes = ttl == null ? settings.enrollmentTtlMinutes() : ttl;
    if (nodeId != null && !nodeId.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")) {
      return Future.failedFuture(FailureCode.BAD_REQUEST.exception("nodeId must be 1-63 letters, digits, '.', '_' or '-'"));
    }
    if (ttlMinutes < 1 || ttlMinutes > 7 * 24 * 60) {
      return Future.failedFuture(FailureCode.BAD_REQUEST.exception("ttlMinutes must be from 1 to 10080 (a week)"));
    }
    String token = Digests.randomSecret("fbe_");
    byte[] hash = NodeProofs.keyOf(token);
    long now = System.currentTimeMillis();
    EnrollmentToken row = new EnrollmentToken(NodeProofs.tokenId(hash), hash, nodeId, by, now, now + ttlMinutes * 60_000, 0,
      null, null);
    return stored(row).map(v -> {
      LOG.info("enrollment token created [tokenId: {}, node: {}, by: {}, expiresAt: {}]", row.tokenId(), nodeId, by,
        java.time.Instant.ofEpochMilli(row.expiresAt()));
      AuditEntry.admin(by, "enrollment.create", nodeId, new JsonObject().put("enrollmentId", row.tokenId())
        .put("ttlMinutes", ttlMinutes), null, null).send(vertx);
      return new JsonObject().put("token", token).put("tokenId", row.tokenId()).put("nodeId", nodeId)
        .put("expiresAt", row.expiresAt());
    });
  }

  /**
   * The new token on this hub's disk and in the fleet's map at once (one wait, not two in a row). When either write
   * fails the caller gets that error and the token is marked spent in both places (not deleted: a hub that still finds
   * a copy sees it spent); its secret was in no answer, so even a copy the withdrawal missed admits nobody.
   */
  private Future<Void> stored(EnrollmentToken row) {
    Future<Void> onDisk = writes.commit(s -> s.insert(row));
    Future<Void> inFleet = shared.offer(context, row);
    return Future.join(onDisk, inFleet).<Void>mapEmpty().recover(err -> {
      Throwable cause = onDisk.failed() ? onDisk.cause() : inFleet.cause();
      EnrollmentToken withdrawn = new EnrollmentToken(row.tokenId(), row.hash(), row.nodeId(), row.createdBy(),
        row.createdAt(), row.expiresAt(), System.currentTimeMillis(), CredentialStore.WITHDRAWN, null);
      return Future.join(writes.commit(s -> s.withdraw(withdrawn.tokenId(), withdrawn.usedAt())),
          shared.offer(context, withdrawn))
        .onFailure(e -> LOG.warn("token not withdrawn everywhere after a failed write; its secret was never answered"
          + " [tokenId: {}, reason: {}]", row.tokenId(), e.getMessage()))
        .transform(ignored -> Future.<Void>failedFuture(cause));
    });
  }

  @Override
  public Future<HelloAdmission> admit(NodeHello hello) {
    return admission.admit(hello);
  }

  /**
   * A new credential over the node's control address, sealed with the current one; the hub switches
   * only when the node proves it holds the new one. The old one keeps verifying for a short grace.
   */
  @Override
  public Future<JsonObject> rekey(String nodeId, String by) {
    NodeCredential current = credentials.get(nodeId);
    if (current == null) {
      return Future.failedFuture(FailureCode.NOT_FOUND.exception("node '" + nodeId + "' is not enrolled: nothing to rekey"));
    }
    String fresh = Digests.randomSecret("fbc_");
    byte[] freshKey = NodeProofs.keyOf(fresh);
    String nonce = Digests.base64Url(Digests.randomBytes(16));
    String box = SealedBox.seal(current.current(), "rekey", nodeId + "|" + nonce,
      new JsonObject().put("credential", fresh));
    return NodeControl.client(vertx).order(ControlOrder.rekey(nodeId, nonce, box))
      .recover(err -> Future.failedFuture(FailureCode.of(err).exception("node '" + nodeId + "' did not take the new"
        + " credential (" + err.getMessage() + "); its credential is unchanged")))
      .compose(reply -> {
        JsonObject ack = new JsonObject().put("nodeId", nodeId).put("nonce", nonce);
        if (!NodeProofs.verify(freshKey, NodeProofs.REKEY_ACK, ack, reply.getString("ack"))) {
          return Future.failedFuture(FailureCode.UNAUTHORIZED.exception("the rekey answer for node '" + nodeId
            + "' does not prove the new credential; its credential is unchanged"));
        }
        // later than the change it replaces even if the hub that made that one had its clock ahead (issue 32)
        long now = Math.max(System.currentTimeMillis(), current.rotatedAt() + 1);
        NodeCredential rotated = new NodeCredential(nodeId, freshKey, current.current(), now + settings.rekeyGraceMs(),
          current.enrolledAt(), now);
        return writes.commit(s -> s.save(rotated)).compose(v -> shared.publish(context, rotated).map(rotated));
      })
      .map(rotated -> {
        credentials.put(rotated);
        LOG.info("node credential rotated [node: {}, by: {}, previousValidUntil: {}]", nodeId, by,
          java.time.Instant.ofEpochMilli(rotated.previousValidUntil()));
        AuditEntry.admin(by, "node.rekey", nodeId, new JsonObject(), null, null).send(vertx);
        return new JsonObject().put("nodeId", nodeId).put("rotatedAt", rotated.rotatedAt())
          .put("previousValidUntil", rotated.previousValidUntil());
      })
      .onFailure(err -> AuditEntry.admin(by, "node.rekey", nodeId, new JsonObject(), FailureCode.of(err).code,
        err.getMessage()).send(vertx));
  }

  /** Forgets the node: its credential, its registry record; its heartbeats drop and calls to it are 404. */
  @Override
  public Future<JsonObject> revoke(String nodeId, String by) {
    boolean enrolled = credentials.has(nodeId);
    // later than the credential's last change even if another hub's clock ran ahead: a revocation always wins
    long now = Math.max(System.currentTimeMillis(), enrolled ? credentials.get(nodeId).rotatedAt() + 1 : 0);
    return writes.commit(s -> s.revoke(nodeId, now)).compose(v -> enrolled ? shared.publish(context, new NodeCredential(nodeId, null, null, 0, 0, now))
      : Future.<Void>succeededFuture()).compose(v -> {
      credentials.revoke(nodeId);
      return registrations.forget(nodeId);
    }).compose(forgot -> {
      if (!enrolled && !Boolean.TRUE.equals(forgot)) {
        return Future.failedFuture(FailureCode.NOT_FOUND.exception("no node '" + nodeId + "' is known to this hub"));
      }
      LOG.info("node revoked [node: {}, by: {}]", nodeId, by);
      AuditEntry.admin(by, "node.revoke", nodeId, new JsonObject(), null, null).send(vertx);
      return Future.succeededFuture(new JsonObject().put("nodeId", nodeId).put("revoked", true));
    });
  }

}
