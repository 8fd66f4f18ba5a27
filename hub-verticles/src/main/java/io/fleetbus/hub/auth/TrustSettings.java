package io.fleetbus.hub.auth;

import io.vertx.core.json.JsonObject;
import java.nio.file.Path;

/**
 * The hub's trust configuration (conf/hub.json: {@code keysDir}, {@code directives}, {@code enrollment},
 * {@code approvals}).
 *
 * @param directiveTtlMs      how long a signed directive stays valid (it is used within milliseconds)
 * @param enrollmentTtlMinutes default lifetime of an enrollment token
 * @param localNodeId         when set, each start writes a one-time token for this node id to
 *                            {@code <data>/local-node-enrollment-token} (the embedded default's local node)
 * @param rekeyGraceMs        how long a node's previous credential still verifies after a rekey
 * @param allowSelfApproval   whether the person who asked for a tier-3 call may approve it
 */
public record TrustSettings(Path keysDir, long directiveTtlMs, long enrollmentTtlMinutes, String localNodeId,
                            long rekeyGraceMs, boolean allowSelfApproval) {

  public static TrustSettings fromConf(JsonObject conf, Path dataDir) {
    JsonObject directives = conf.getJsonObject("directives", new JsonObject());
    JsonObject enrollment = conf.getJsonObject("enrollment", new JsonObject());
    JsonObject approvals = conf.getJsonObject("approvals", new JsonObject());
    String keys = conf.getString("keysDir");
    return new TrustSettings(keys == null || keys.isBlank() ? dataDir.resolve("keys") : Path.of(keys),
      directives.getLong("ttlMs", 30_000L),
      enrollment.getLong("tokenTtlMinutes", 30L),
      enrollment.getString("localNodeId"),
      enrollment.getLong("rekeyGraceMs", 60_000L),
      approvals.getBoolean("allowSelfApproval", false));
  }
}
