package io.fleetbus.hub.enrollment;

import io.fleetbus.hub.audit.AuditEntry;
import io.fleetbus.hub.store.GroupCommit;
import io.fleetbus.hub.store.Transactions;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.NodeProofs;
import io.fleetbus.shared.trust.SealedBox;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits hellos: a node proves the credential in force, or spends a one-time enrollment token (once across the fleet)
 * and gets a fresh credential sealed with that token; a hello whose nonce was seen is a replay. The checks themselves
 * are {@link HelloChecks}. Runs on the enrollment verticle's event loop.
 */
final class Admission {
  private static final Logger LOG = LoggerFactory.getLogger(Admission.class);

  /** Nonces of admitted hellos, until they are too old to be accepted anyway (insertion order = expiry order). */
  private final Map<String, Long> helloNonces = new LinkedHashMap<>();
  private final Context context;
  private final CredentialStore store;
  private final GroupCommit<Transactions.Step<CredentialStore>> writes;
  private final SharedCredentials shared;
  private final CredentialsInForce credentials;
  private final String hubPublicKey;
  private final LocalNodeToken localToken;

  /** @param store read here; @param writes where this writes to it (group commit, answered once committed) */
  Admission(Context context, CredentialStore store, GroupCommit<Transactions.Step<CredentialStore>> writes,
            SharedCredentials shared, CredentialsInForce credentials, String hubPublicKey, LocalNodeToken localToken) {
    this.context = context;
    this.store = store;
    this.writes = writes;
    this.shared = shared;
    this.credentials = credentials;
    this.hubPublicKey = hubPublicKey;
    this.localToken = localToken;
  }

  Future<HelloAdmission> admit(NodeHello hello) {
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
    return enroll(hello, now);
  }

  /** Spends the hello's token (fleet-wide first, then here) for a fresh credential, sealed with the token for the node. */
  private Future<HelloAdmission> enroll(NodeHello hello, long now) {
    String tokenId = hello.auth().getString("tokenId", "");
    return token(tokenId).compose(token -> {
      HelloChecks.enrollment(hello, token, now);
      remember(hello.auth().getString("nonce"), now);
      String credential = Digests.randomSecret("fbc_");
      NodeCredential c = new NodeCredential(hello.nodeId(), NodeProofs.keyOf(credential), null, 0, now, now);
      return shared.spend(context, tokenId, hello.nodeId(), hello.instanceId(), now)
        .compose(spentFleetWide -> spentFleetWide ? spendHere(tokenId, hello.instanceId(), c)
          : Future.succeededFuture(false))
        .compose(spent -> {
          if (!spent) {
            return Future.failedFuture(HelloChecks.refused(hello.nodeId(),
              "its enrollment token was already used; create a new one"));
          }
          enrolled(c, token);
          String sealed = SealedBox.seal(token.hash(), "enroll", NodeProofs.enrollContext(hello.nodeId(),
            hello.instanceId(), hello.auth().getString("nonce")), new JsonObject().put("credential", credential)
            .put("hubPublicKey", hubPublicKey));
          return Future.succeededFuture(new HelloAdmission(c.nodeId(), c.current(), sealed, hubPublicKey, true));
        });
    });
  }

  /** A node just enrolled: its credential in force here and shared with the other hubs, the enrollment audited. */
  private void enrolled(NodeCredential c, EnrollmentToken token) {
    credentials.put(c);
    shared.publish(context, c).onFailure(err -> LOG.error("credential not shared with the other hubs [node: {}]",
      c.nodeId(), err));
    LOG.info("node enrolled [node: {}, tokenId: {}]", c.nodeId(), token.tokenId());
    if (localToken.isFor(c.nodeId())) {
      localToken.remove().onFailure(err -> LOG.warn("used enrollment token file not removed [reason: {}]",
        err.getMessage()));
    }
    AuditEntry.admin(token.createdBy(), "node.enroll", c.nodeId(), new JsonObject().put("enrollmentId", token.tokenId()),
      null, null).send(context.owner());
  }

  /** The token as this hub stored it, else as another hub shared it (then stored here, unspent, for the spend). */
  private Future<EnrollmentToken> token(String tokenId) {
    return context.owner().executeBlocking(() -> store.token(tokenId)).compose(local -> local != null
      ? Future.succeededFuture(local)
      : shared.token(context, tokenId).compose(remote -> remote == null ? Future.succeededFuture(null)
        : writes.commit(s -> s.insert(remote)).map(remote)));
  }

  /** The token spent in this hub's file and the credential stored with it, with the next batch; false: spent before. */
  private Future<Boolean> spendHere(String tokenId, String instanceId, NodeCredential c) {
    AtomicBoolean spent = new AtomicBoolean();
    return writes.commit(s -> spent.set(s.enroll(tokenId, instanceId, c))).map(v -> spent.get());
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
