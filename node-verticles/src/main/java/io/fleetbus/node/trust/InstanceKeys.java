package io.fleetbus.node.trust;

import io.fleetbus.shared.trust.CallKeys;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.bouncycastle.crypto.params.X25519PrivateKeyParameters;

/**
 * The call-key private halves of the node processes this JVM runs (one, or several in tests), by instance id
 * ({@link CallKeys}). Memory only: a node process's key dies with it, and a new process is a new instance with a
 * new key.
 */
public final class InstanceKeys {
  private static final Map<String, X25519PrivateKeyParameters> KEYS = new ConcurrentHashMap<>();

  private InstanceKeys() {
  }

  /** A new node process's instance id: its call key's public half. */
  public static String newInstanceId() {
    X25519PrivateKeyParameters key = CallKeys.newKey();
    String id = CallKeys.instanceId(key);
    KEYS.put(id, key);
    return id;
  }

  /** The private half behind {@code instanceId}; null when this JVM did not make it (then calls are Ed25519-signed). */
  static X25519PrivateKeyParameters privateKey(String instanceId) {
    return instanceId == null ? null : KEYS.get(instanceId);
  }
}
