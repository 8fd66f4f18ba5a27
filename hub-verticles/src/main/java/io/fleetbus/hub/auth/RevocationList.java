package io.fleetbus.hub.auth;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The revocations in force on this hub, read on every token check ({@link UserTokens}, {@link BearerAuth}) from any
 * thread: two lookups in concurrent maps. Filled and kept current by the revocation verticle (SQLite and the fleet's
 * shared map); an entry whose token could no longer be valid anyway is dropped.
 */
public final class RevocationList {
  private final Map<String, Revocation> byKey = new ConcurrentHashMap<>();

  /** Adds (or, for a key already revoked, widens) a revocation; answers the one now in force. */
  public Revocation add(Revocation r) {
    return byKey.merge(r.key(), r, Revocation::laterOf);
  }

  /** Null when no revocation covers a token with these claims; else why it is refused (a 401 message). */
  public String refusal(JsonObject claims) {
    if (byKey.isEmpty()) {
      return null;
    }
    Object jti = claims.getValue("jti");
    Revocation byId = jti instanceof String id ? byKey.get(Revocation.Kind.TOKEN.label() + ":" + id) : null;
    if (byId != null) {
      return "bearer token was revoked at " + Instant.ofEpochMilli(byId.revokedAt()) + " (token id " + byId.value()
        + "): ask for a new one";
    }
    Object sub = claims.getValue("sub");
    Revocation bySubject = sub instanceof String s ? byKey.get(Revocation.Kind.SUBJECT.label() + ":" + s) : null;
    if (bySubject != null && bySubject.covers(claims)) {
      return "every token of '" + bySubject.value() + "' issued until " + Instant.ofEpochMilli(bySubject.revokedAt())
        + " was revoked: ask for a new one";
    }
    return null;
  }

  /**
   * The user again when no revocation covers its token; else a 401 saying so. Every path to a verified user passes
   * here: {@link UserTokens#authenticate} after the signature, and {@link BearerAuth} on each use of a token it
   * verified before.
   */
  public Future<User> unlessRevoked(User user) {
    String refused = refusal(io.fleetbus.hub.authz.Caller.tokenOf(user));
    return refused == null ? Future.succeededFuture(user) : Future.failedFuture(FailureCode.UNAUTHORIZED.exception(refused));
  }

  /** Whether a revocation covers these claims. */
  public boolean revokes(JsonObject claims) {
    return refusal(claims) != null;
  }

  /** Every revocation still kept at {@code nowMs}, newest first; older ones are dropped on the way. */
  public List<Revocation> inForce(long nowMs) {
    byKey.values().removeIf(r -> r.keepUntil() <= nowMs);
    List<Revocation> out = new ArrayList<>(byKey.values());
    out.sort(Comparator.comparingLong(Revocation::revokedAt).reversed());
    return out;
  }
}
