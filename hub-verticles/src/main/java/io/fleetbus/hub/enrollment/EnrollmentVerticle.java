package io.fleetbus.hub.enrollment;

import io.fleetbus.hub.audit.AuditEntry;
import io.fleetbus.hub.auth.TrustSettings;
import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.files.AtomicFiles;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.NodeProofs;
import io.fleetbus.shared.trust.SealedBox;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may be a node: makes one-time enrollment tokens, admits hellos (enrollment by token, or proof of
 * the credential), rotates and revokes credentials, and tells the router and monitor the current proof
 * keys (hub-locally). State — the credential hashes — is confined here and stored in SQLite.
 */
public final class EnrollmentVerticle extends VerticleBase implements EnrollmentService {
  private static final Logger LOG = LoggerFactory.getLogger(EnrollmentVerticle.class);
  public static final String LOCAL_TOKEN_FILE = "local-node-enrollment-token";
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);

  private final Path dbFile;
  private final Path dataDir;
  private final String hubPublicKey;
  private final TrustSettings settings;
  private final Map<String, NodeCredential> credentials = new HashMap<>();
  private final Map<String, Long> helloNonces = new LinkedHashMap<>();
  private final SharedCredentials shared;
  private final Registrations registrations;
  private CredentialStore store;

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
    return vertx.executeBlocking(() -> {
      store = new CredentialStore(dbFile);
      return store.credentials();
    }).compose(loaded -> {
      loaded.forEach(c -> {
        credentials.put(c.nodeId(), c);
        publish(c);
      });
      LOG.info("credentials loaded [nodes: {}]", loaded.size());
      return shared.join(context, loaded, this::applyShared);
    }).compose(v -> EnrollmentBus.serve(vertx, this))
      .compose(v -> settings.localNodeId() == null ? Future.succeededFuture() : writeLocalNodeToken());
  }

  @Override
  public Future<?> stop() {
    return store == null ? Future.succeededFuture() : vertx.executeBlocking(() -> {
      store.close();
      return null;
    });
  }

  /** A credential another hub enrolled, rotated or revoked: stored here too, and in force at once. */
  private void applyShared(NodeCredential c) {
    vertx.executeBlocking(() -> {
      if (c.isRevoked()) {
        store.revoke(c.nodeId(), c.rotatedAt());
      } else {
        store.save(c);
      }
      return null;
    }).onSuccess(v -> {
      if (c.isRevoked()) {
        credentials.remove(c.nodeId());
        registrations.forget(c.nodeId())
          .onFailure(err -> LOG.warn("registry did not forget a node revoked by another hub [node: {}]", c.nodeId(), err));
      } else {
        credentials.put(c.nodeId(), c);
      }
      publish(c);
      LOG.info("credential changed by another hub [node: {}, revoked: {}]", c.nodeId(), c.isRevoked());
    }).onFailure(err -> LOG.error("cannot store a credential shared by another hub [node: {}]", c.nodeId(), err));
  }

  /**
   * The embedded default: a one-time token for the local node, owner-only in the data folder, never logged; only
   * while that node is not enrolled (the file is removed once the token is used, or found already enrolled).
   */
  private Future<Void> writeLocalNodeToken() {
    if (credentials.containsKey(settings.localNodeId())) {
      return removeLocalNodeToken();
    }
    return createToken(settings.localNodeId(), settings.enrollmentTtlMinutes(), "hub")
      .compose(t -> vertx.executeBlocking(() -> {
        AtomicFiles.writePrivate(dataDir.resolve(LOCAL_TOKEN_FILE), t.getString("token") + "\n");
        return null;
      }));
  }

  private Future<Void> removeLocalNodeToken() {
    return vertx.executeBlocking(() -> {
      java.nio.file.Files.deleteIfExists(dataDir.resolve(LOCAL_TOKEN_FILE));
      return null;
    });
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
    return vertx.executeBlocking(() -> {
      store.insert(row);
      return null;
    }).compose(v -> shared.offer(context, row)).map(v -> {
      LOG.info("enrollment token created [tokenId: {}, node: {}, by: {}, expiresAt: {}]", row.tokenId(), nodeId, by,
        java.time.Instant.ofEpochMilli(row.expiresAt()));
      AuditEntry.admin(by, "enrollment.create", nodeId, new JsonObject().put("enrollmentId", row.tokenId())
        .put("ttlMinutes", ttlMinutes), null, null).send(vertx);
      return new JsonObject().put("token", token).put("tokenId", row.tokenId()).put("nodeId", nodeId)
        .put("expiresAt", row.expiresAt());
    });
  }

  @Override
  public Future<HelloAdmission> admit(NodeHello hello) {
    long now = System.currentTimeMillis();
    String method = hello.auth().getString("method", "none");
    if (hello.nodeId() == null || hello.instanceId() == null) {
      return Future.failedFuture(FailureCode.BAD_REQUEST.exception("hello needs nodeId and instanceId"));
    }
    if (seen(hello.auth().getString("nonce"), now)) {
      return Future.failedFuture(HelloChecks.refused(hello.nodeId(), "it is a replay of an earlier hello"));
    }
    if ("credential".equals(method)) {
      try {
        byte[] key = HelloChecks.credential(hello, credentials.get(hello.nodeId()), now);
        remember(hello.auth().getString("nonce"), now);
        return Future.succeededFuture(new HelloAdmission(hello.nodeId(), key, null, hubPublicKey, false));
      } catch (RuntimeException e) {
        return Future.failedFuture(e);
      }
    }
    if (!"enroll".equals(method)) {
      return Future.failedFuture(HelloChecks.refused(hello.nodeId(), "it proves no credential: this node is not enrolled;"
        + " start it with an enrollment token (POST /api/v1/enrollments, then FLEETBUS_ENROLLMENT_TOKEN)"));
    }
    String tokenId = hello.auth().getString("tokenId", "");
    return token(tokenId).compose(token -> {
      HelloChecks.enrollment(hello, token, now);
      remember(hello.auth().getString("nonce"), now);
      String credential = Digests.randomSecret("fbc_");
      NodeCredential c = new NodeCredential(hello.nodeId(), NodeProofs.keyOf(credential), null, 0, now, now);
      return shared.spend(context, tokenId, hello.nodeId(), hello.instanceId(), now)
        .compose(spentFleetWide -> spentFleetWide
          ? vertx.executeBlocking(() -> store.enroll(tokenId, hello.instanceId(), c)) : Future.succeededFuture(false))
        .compose(spent -> {
        if (!spent) {
          return Future.failedFuture(HelloChecks.refused(hello.nodeId(), "its enrollment token was already used; create a new one"));
        }
        credentials.put(c.nodeId(), c);
        publish(c);
        shared.publish(context, c).onFailure(err -> LOG.error("credential not shared with the other hubs [node: {}]",
          c.nodeId(), err));
        LOG.info("node enrolled [node: {}, tokenId: {}]", c.nodeId(), tokenId);
        if (c.nodeId().equals(settings.localNodeId())) {
          removeLocalNodeToken().onFailure(err -> LOG.warn("used enrollment token file not removed [reason: {}]",
            err.getMessage()));
        }
        AuditEntry.admin(token.createdBy(), "node.enroll", c.nodeId(), new JsonObject().put("enrollmentId", tokenId), null, null)
          .send(vertx);
        String sealed = SealedBox.seal(token.hash(), "enroll", NodeProofs.enrollContext(hello.nodeId(), hello.instanceId(),
          hello.auth().getString("nonce")), new JsonObject().put("credential", credential).put("hubPublicKey", hubPublicKey));
        return Future.succeededFuture(new HelloAdmission(c.nodeId(), c.current(), sealed, hubPublicKey, true));
      });
    });
  }

  /** The token as this hub stored it, else as another hub shared it (then stored here, unspent, for the spend). */
  private Future<EnrollmentToken> token(String tokenId) {
    return vertx.executeBlocking(() -> store.token(tokenId)).compose(local -> local != null
      ? Future.succeededFuture(local)
      : shared.token(context, tokenId).compose(remote -> remote == null ? Future.succeededFuture(null)
        : vertx.executeBlocking(() -> {
          store.insert(remote);
          return remote;
        })));
  }

  /**
   * A new credential over the node's control address, sealed with the current one; the hub switches
   * only when the node proves it holds the new one. The old one keeps verifying for a short grace.
   */
  @Override
  public Future<JsonObject> rekey(String nodeId, String by) {
    NodeCredential current = nodeId == null ? null : credentials.get(nodeId);
    if (current == null) {
      return Future.failedFuture(FailureCode.NOT_FOUND.exception("node '" + nodeId + "' is not enrolled: nothing to rekey"));
    }
    String fresh = Digests.randomSecret("fbc_");
    byte[] freshKey = NodeProofs.keyOf(fresh);
    String nonce = Digests.base64Url(Digests.randomBytes(16));
    JsonObject body = new JsonObject().put("nonce", nonce)
      .put("box", SealedBox.seal(current.current(), "rekey", nodeId + "|" + nonce, new JsonObject().put("credential", fresh)));
    JsonObject request = new JsonObject().put("nodeId", nodeId).put("type", Control.REKEY).put("body", body);
    return vertx.eventBus().<JsonObject>request(Addresses.HUB_CONTROL, request, new DeliveryOptions(LOCAL).setSendTimeout(15_000))
      .recover(err -> Future.failedFuture(FailureCode.of(err).exception("node '" + nodeId + "' did not take the new"
        + " credential (" + err.getMessage() + "); its credential is unchanged")))
      .compose(reply -> {
        JsonObject ack = new JsonObject().put("nodeId", nodeId).put("nonce", nonce);
        if (!NodeProofs.verify(freshKey, NodeProofs.REKEY_ACK, ack, reply.body().getString("ack"))) {
          return Future.failedFuture(FailureCode.UNAUTHORIZED.exception("the rekey answer for node '" + nodeId
            + "' does not prove the new credential; its credential is unchanged"));
        }
        long now = System.currentTimeMillis();
        NodeCredential rotated = new NodeCredential(nodeId, freshKey, current.current(), now + settings.rekeyGraceMs(),
          current.enrolledAt(), now);
        return vertx.executeBlocking(() -> {
          store.save(rotated);
          return rotated;
        }).compose(saved -> shared.publish(context, saved).map(saved));
      })
      .map(rotated -> {
        credentials.put(nodeId, rotated);
        publish(rotated);
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
    boolean enrolled = nodeId != null && credentials.containsKey(nodeId);
    long now = System.currentTimeMillis();
    return vertx.executeBlocking(() -> {
      store.revoke(nodeId, now);
      return null;
    }).compose(v -> enrolled ? shared.publish(context, new NodeCredential(nodeId, null, null, 0, 0, now))
      : Future.<Void>succeededFuture()).compose(v -> {
      credentials.remove(nodeId);
      publish(NodeCredential.revoked(nodeId));
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

  private void publish(NodeCredential c) {
    vertx.eventBus().publish(Addresses.HUB_NODE_KEYS, c, LOCAL);
  }

  private boolean seen(String nonce, long now) {
    Iterator<Map.Entry<String, Long>> it = helloNonces.entrySet().iterator();
    while (it.hasNext() && it.next().getValue() < now) {
      it.remove();
    }
    return nonce != null && helloNonces.containsKey(nonce);
  }

  private void remember(String nonce, long now) {
    if (helloNonces.size() < 100_000) {
      helloNonces.put(nonce, now + 2 * HelloChecks.MAX_CLOCK_SKEW_MS);
    }
  }
}
