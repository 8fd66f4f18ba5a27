package io.fleetbus.hub.auth;

import io.fleetbus.shared.trust.CallKeys;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.bouncycastle.crypto.params.X25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.X25519PublicKeyParameters;

/**
 * This hub process's side of {@link CallKeys}: its X25519 key pair (memory only, new with every hub process) and, per
 * node process it calls, the signed grant and the derived key. The grant is signed once per node process and renewed
 * halfway through its life; the cache is bounded (a hub that calls more node processes than that re-derives).
 * Thread-safe.
 */
final class CallKeyGrants {
  /** A grant lives a day; the hub signs a new one after half of that. */
  static final long GRANT_TTL_MS = 24 * 3600_000L;
  private static final int MAX_SESSIONS = 65_536;

  private final X25519PrivateKeyParameters own = CallKeys.newKey();
  private final String ownPublic = CallKeys.publicText(own);
  private final Function<JsonObject, String> signGrant;
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();

  /** The grant a node process gets with every call, and the key its calls are signed with. */
  record Session(String grant, byte[] key, long renewAtMs) {
  }

  CallKeyGrants(Function<JsonObject, String> signGrant) {
    this.signGrant = signGrant;
  }

  /** The session for node process {@code instanceId}; null when its instance id carries no call key. */
  Session sessionFor(String nodeId, String instanceId, long nowMs) {
    String id = nodeId + "\n" + instanceId;
    Session known = sessions.get(id);
    if (known != null && nowMs < known.renewAtMs()) {
      return known;
    }
    X25519PublicKeyParameters node = CallKeys.publicKeyOf(instanceId);
    if (node == null) {
      return null;
    }
    byte[] key;
    try {
      key = CallKeys.derive(own, node, nodeId, instanceId, ownPublic);
    } catch (IllegalArgumentException e) {
      return null;
    }
    Session fresh = new Session(signGrant.apply(CallKeys.grantClaims(nodeId, instanceId, ownPublic, nowMs, GRANT_TTL_MS)),
      key, nowMs + GRANT_TTL_MS / 2);
    if (sessions.size() >= MAX_SESSIONS) {
      sessions.clear();
    }
    sessions.put(id, fresh);
    return fresh;
  }
}
