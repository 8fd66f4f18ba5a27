package io.fleetbus.node.trust;

import io.fleetbus.shared.files.AtomicFiles;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What enrollment gave this node: its credential (and the one before the last rekey, in case the
 * hub never heard the node confirm it) and the hub's directive key, pinned. Stored owner-only in
 * {@code <data>/trust/identity.json}. Blocking file work: workers only.
 */
public record NodeIdentity(String nodeId, String credential, String previousCredential, String hubPublicKey,
                           long enrolledAt) {

  public static final String FILE = "identity.json";

  public NodeIdentity rotated(String newCredential) {
    return new NodeIdentity(nodeId, newCredential, credential, hubPublicKey, enrolledAt);
  }

  /** The identity with the previous credential back in front (the hub still knows only that one). */
  public NodeIdentity fallenBack() {
    return new NodeIdentity(nodeId, previousCredential, null, hubPublicKey, enrolledAt);
  }

  public static NodeIdentity load(Path trustDir) throws IOException {
    Path file = trustDir.resolve(FILE);
    if (!Files.exists(file)) {
      return null;
    }
    JsonObject j = new JsonObject(Files.readString(file));
    return new NodeIdentity(j.getString("nodeId"), j.getString("credential"), j.getString("previousCredential"),
      j.getString("hubPublicKey"), j.getLong("enrolledAt", 0L));
  }

  public void save(Path trustDir) throws IOException {
    AtomicFiles.privateDir(trustDir);
    AtomicFiles.writePrivate(trustDir.resolve(FILE), new JsonObject().put("nodeId", nodeId).put("credential", credential)
      .put("previousCredential", previousCredential).put("hubPublicKey", hubPublicKey).put("enrolledAt", enrolledAt)
      .encodePrettily());
  }

  @Override
  public String toString() {
    // records print every field; this one holds secrets
    return "NodeIdentity[nodeId=" + nodeId + ", enrolledAt=" + enrolledAt + "]";
  }
}
