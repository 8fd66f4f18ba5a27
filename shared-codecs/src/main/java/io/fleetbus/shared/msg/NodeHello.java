package io.fleetbus.shared.msg;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * A node introducing itself to the hub. {@code instanceId} is new for every node process, so the
 * hub can tell a re-hello of the same process (accepted) from a second process with the same id.
 * {@code memberId} is the node's cluster member id, so the hub notices at once when that member leaves.
 * {@code auth} proves who says hello without revealing a secret: {@code method} ({@code enroll} with
 * {@code tokenId}, or {@code credential}), {@code sentAt}, {@code nonce} and {@code proof}, an HMAC over
 * the rest of the hello (see {@code io.fleetbus.shared.trust.NodeProofs}). {@code confinement} says what the kernel
 * lets the processes the node starts do ({@code mode}: landlock-strict, landlock-scope or none; {@code abi};
 * {@code required}; {@code reason} when none; {@code processGroups}: commands run as groups killed with the node).
 */
public record NodeHello(String nodeId, String instanceId, String memberId, String platform, String capabilityTier,
                        JsonObject labels, String agentVersion, List<String> tools,
                        JsonObject auth, JsonObject confinement) {

  public NodeHello(String nodeId, String instanceId, String memberId, String platform, String capabilityTier,
                   JsonObject labels, String agentVersion, List<String> tools, JsonObject auth) {
    this(nodeId, instanceId, memberId, platform, capabilityTier, labels, agentVersion, tools, auth, null);
  }

  public NodeHello {
    confinement = confinement == null ? new JsonObject() : confinement;
    labels = labels == null ? new JsonObject() : labels;
    tools = tools == null ? List.of() : List.copyOf(tools);
    auth = auth == null ? new JsonObject() : auth;
  }

  public NodeHello withAuth(JsonObject newAuth) {
    return new NodeHello(nodeId, instanceId, memberId, platform, capabilityTier, labels, agentVersion, tools, newAuth,
      confinement);
  }

  public JsonObject toJson() {
    return new JsonObject()
      .put("nodeId", nodeId)
      .put("instanceId", instanceId)
      .put("memberId", memberId)
      .put("platform", platform)
      .put("capabilityTier", capabilityTier)
      .put("labels", labels)
      .put("agentVersion", agentVersion)
      .put("tools", new JsonArray(tools))
      .put("auth", auth)
      .put("confinement", confinement);
  }

  @SuppressWarnings("unchecked")
  public static NodeHello fromJson(JsonObject j) {
    return new NodeHello(j.getString("nodeId"), j.getString("instanceId"), j.getString("memberId"), j.getString("platform"),
      j.getString("capabilityTier"), j.getJsonObject("labels"), j.getString("agentVersion"),
      (List<String>) (List<?>) j.getJsonArray("tools", new JsonArray()).getList(),
      j.getJsonObject("auth"), j.getJsonObject("confinement"));
  }
}
