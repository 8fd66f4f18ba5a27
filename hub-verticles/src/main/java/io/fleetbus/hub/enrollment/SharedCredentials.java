package io.fleetbus.hub.enrollment;

import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.cluster.SharedMap;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.trust.Digests;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Node credentials and enrollment tokens shared with the fleet's other hubs (sealed Hazelcast maps), so
 * a node enrolled through one hub is admitted by any, and a token is spent once across all of them.
 * Each hub keeps its own SQLite copy for restarts; a revocation is a tombstone, so a hub that was down
 * when it happened does not bring the credential back. A credential's change time (rotation, or revocation for a
 * tombstone) only moves forward: an entry no newer than what this hub holds — in memory, or in SQLite after a restart,
 * revocations included — is a replay and is refused (issue 32: a saved credential written back after a revoke).
 */
final class SharedCredentials {
  private static final Logger LOG = LoggerFactory.getLogger(SharedCredentials.class);
  private static final long TOKEN_KEEP_MS = 8 * FleetState.DAY_MS;

  private final SharedMap credentials;
  private final SharedMap tokens;
  /** Per node, the newest change time this hub holds (rotation or revocation); confined to the verticle's context. */
  private final Map<String, Long> newest = new HashMap<>();
  private final boolean fresh = !FaultSwitch.NO_SHARED_FRESHNESS.on();

  /** @param state the fleet's maps; null for a hub that shares nothing (its own SQLite decides alone) */
  SharedCredentials(FleetState state) {
    credentials = state == null ? null : state.map(FleetState.CREDENTIALS);
    tokens = state == null ? null : state.map(FleetState.ENROLLMENTS, TOKEN_KEEP_MS);
  }

  /**
   * Merges this hub's stored credentials and revocations with the fleet's (the later change wins), hands every change
   * the fleet knows better to {@code apply}, and keeps doing so for newer changes made by other hubs.
   *
   * @param revoked when each node this hub revoked (or heard revoked) was revoked, from its SQLite copy
   */
  Future<Void> join(Context ctx, List<NodeCredential> local, Map<String, Long> revoked, Consumer<NodeCredential> apply) {
    if (credentials == null) {
      return Future.succeededFuture();
    }
    local.forEach(this::seen);
    revoked.forEach((nodeId, at) -> seen(NodeCredential.revokedAt(nodeId, at)));
    // what this hub's own copy holds: only that is offered back over an older shared entry (a change heard from another
    // hub while the map was read is the map's own, newer than what the read found: CredentialsJoinTest)
    Map<String, Long> own = new HashMap<>(newest);
    credentials.listen(ctx, (nodeId, value) -> {
      if (value != null) {
        takeIfNewer(fromJson(value), apply);
      }
    });
    Map<String, NodeCredential> mine = new HashMap<>();
    local.forEach(c -> mine.put(c.nodeId(), c));
    return credentials.entries(ctx).compose(shared -> {
      Future<Void> offered = Future.succeededFuture();
      for (SharedMap.Entry e : shared) {
        NodeCredential theirs = fromJson(e.value());
        NodeCredential ours = mine.remove(theirs.nodeId());
        long held = own.getOrDefault(theirs.nodeId(), 0L);
        if (!takeIfNewer(theirs, apply) && held > changedAt(theirs) && held >= newest.get(theirs.nodeId())) {
          NodeCredential better = ours != null && changedAt(ours) == held ? ours : NodeCredential.revokedAt(theirs.nodeId(), held);
          offered = offered.compose(v -> publish(ctx, better));
        }
      }
      for (NodeCredential ours : mine.values()) {
        offered = offered.compose(v -> credentials.putIfAbsent(ctx, ours.nodeId(), toJson(ours)).mapEmpty());
      }
      return offered;
    });
  }

  /** Hands {@code theirs} to {@code apply} when it is newer than what this hub holds; false (logged) when it is not. */
  private boolean takeIfNewer(NodeCredential theirs, Consumer<NodeCredential> apply) {
    long held = newest.getOrDefault(theirs.nodeId(), 0L);
    if (fresh && changedAt(theirs) <= held) {
      if (changedAt(theirs) < held) {
        LOG.warn("shared credential refused [node: {}, reason: changed at {}, this hub holds a change of {} (a replay)]",
          theirs.nodeId(), changedAt(theirs), held);
      }
      return false;
    }
    seen(theirs);
    apply.accept(theirs);
    return true;
  }

  private void seen(NodeCredential c) {
    newest.merge(c.nodeId(), changedAt(c), Math::max);
  }

  Future<Void> publish(Context ctx, NodeCredential c) {
    seen(c);
    return credentials == null ? Future.succeededFuture() : credentials.set(ctx, c.nodeId(), toJson(c));
  }

  Future<Void> offer(Context ctx, EnrollmentToken t) {
    return tokens == null ? Future.succeededFuture() : tokens.set(ctx, t.tokenId(), toJson(t));
  }

  /** A token another hub made (null when no hub knows it). */
  Future<EnrollmentToken> token(Context ctx, String tokenId) {
    return tokens == null ? Future.succeededFuture() : tokens.get(ctx, tokenId)
      .map(e -> e == null || e.value() == null ? null : tokenFromJson(e.value()));
  }

  /**
   * Spends the token fleet-wide: true when it was unspent (or spent by this same node process, whose answer
   * was lost) and is now spent by it; true as well when no hub shared it (the local store decides then).
   */
  Future<Boolean> spend(Context ctx, String tokenId, String nodeId, String instanceId, long at) {
    if (tokens == null) {
      return Future.succeededFuture(true);
    }
    return tokens.get(ctx, tokenId).compose(e -> {
      if (e == null || e.value() == null) {
        // none, or none a hub of this fleet wrote (junk, a replay): this hub's own store decides
        return Future.succeededFuture(true);
      }
      EnrollmentToken t = tokenFromJson(e.value());
      if (t.used()) {
        return Future.succeededFuture(nodeId.equals(t.usedByNode()) && instanceId.equals(t.usedByInstance()));
      }
      EnrollmentToken spent = new EnrollmentToken(t.tokenId(), t.hash(), t.nodeId(), t.createdBy(), t.createdAt(),
        t.expiresAt(), at, nodeId, instanceId);
      return tokens.replace(ctx, e, toJson(spent));
    });
  }

  /** When the credential last changed: its rotation, or its revocation for a tombstone. */
  private static long changedAt(NodeCredential c) {
    return c.rotatedAt();
  }

  static JsonObject toJson(NodeCredential c) {
    return new JsonObject().put("nodeId", c.nodeId())
      .put("current", c.current() == null ? null : Digests.base64Url(c.current()))
      .put("previous", c.previous() == null ? null : Digests.base64Url(c.previous()))
      .put("previousValidUntil", c.previousValidUntil()).put("enrolledAt", c.enrolledAt()).put("rotatedAt", c.rotatedAt());
  }

  static NodeCredential fromJson(JsonObject j) {
    String current = j.getString("current");
    String previous = j.getString("previous");
    return new NodeCredential(j.getString("nodeId"), current == null ? null : Digests.fromBase64Url(current),
      previous == null ? null : Digests.fromBase64Url(previous), j.getLong("previousValidUntil", 0L),
      j.getLong("enrolledAt", 0L), j.getLong("rotatedAt", 0L));
  }

  private static JsonObject toJson(EnrollmentToken t) {
    return new JsonObject().put("tokenId", t.tokenId()).put("hash", Digests.base64Url(t.hash())).put("nodeId", t.nodeId())
      .put("createdBy", t.createdBy()).put("createdAt", t.createdAt()).put("expiresAt", t.expiresAt())
      .put("usedAt", t.usedAt()).put("usedByNode", t.usedByNode()).put("usedByInstance", t.usedByInstance());
  }

  private static EnrollmentToken tokenFromJson(JsonObject j) {
    return new EnrollmentToken(j.getString("tokenId"), Digests.fromBase64Url(j.getString("hash")), j.getString("nodeId"),
      j.getString("createdBy"), j.getLong("createdAt", 0L), j.getLong("expiresAt", 0L), j.getLong("usedAt", 0L),
      j.getString("usedByNode"), j.getString("usedByInstance"));
  }
}
