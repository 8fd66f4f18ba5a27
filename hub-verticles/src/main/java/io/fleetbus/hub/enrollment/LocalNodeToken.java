package io.fleetbus.hub.enrollment;

import io.fleetbus.shared.files.AtomicFiles;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The embedded default's one-time enrollment token for the hub's own local node ({@code localNodeId}): a file in the
 * data folder, owner-only and never logged, present only while that node is not enrolled (removed once the token is
 * used, or when the node is found enrolled already).
 *
 * @param nodeId the local node's id; null when the hub has no local node
 */
record LocalNodeToken(Vertx vertx, Path file, String nodeId) {
  static final String FILE_NAME = "local-node-enrollment-token";

  /** Whether {@code enrolled} is the local node. */
  boolean isFor(String enrolled) {
    return nodeId != null && nodeId.equals(enrolled);
  }

  Future<Void> write(String token) {
    return vertx.executeBlocking(() -> {
      AtomicFiles.writePrivate(file, token + "\n");
      return null;
    });
  }

  Future<Void> remove() {
    return vertx.executeBlocking(() -> {
      Files.deleteIfExists(file);
      return null;
    });
  }
}
