package io.fleetbus.node.tools.env;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.shared.trust.SecretMasker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** get_agent_config: the node's effective settings, every secret-looking value masked. */
public final class AgentConfigTool implements ToolHandler {
  private final String agentVersion;
  private final String confinement;

  public AgentConfigTool(String agentVersion) {
    this(agentVersion, "none (starts no processes)");
  }

  /** @param confinement what the kernel lets this node's processes do ({@code Confinement#report()}) */
  public AgentConfigTool(String agentVersion, String confinement) {
    this.agentVersion = agentVersion;
    this.confinement = confinement;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) {
    NodeSettings s = ctx.settings();
    JsonObject conf = new JsonObject()
      .put("nodeId", s.nodeId())
      .put("platform", NodeSettings.platform())
      .put("agentVersion", agentVersion)
      .put("capabilityTier", s.capabilityTier())
      .put("confinement", confinement)
      .put("labels", s.labels())
      .put("dataDir", s.dataDir().toAbsolutePath().toString())
      .put("heartbeatIntervalMs", s.heartbeatIntervalMs())
      .put("allowlist", new JsonArray(s.allowlist()))
      .put("outputCapBytes", s.outputCapBytes())
      .put("tools", s.tools().toJson());
    return SecretMasker.maskTree(conf);
  }
}
