package io.fleetbus.node.tools.env;

import io.fleetbus.node.NodeSettings;
import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.shared.trust.SecretMasker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** get_agent_config: the node's effective settings, every secret-looking value masked. */
public final class AgentConfigTool implements ToolHandler {
  private final String agentVersion;

  public AgentConfigTool(String agentVersion) {
    this.agentVersion = agentVersion;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) {
    NodeSettings s = ctx.settings();
    JsonObject conf = new JsonObject()
      .put("nodeId", s.nodeId())
      .put("platform", NodeSettings.platform())
      .put("agentVersion", agentVersion)
      .put("capabilityTier", s.capabilityTier())
      .put("labels", s.labels())
      .put("dataDir", s.dataDir().toAbsolutePath().toString())
      .put("heartbeatIntervalMs", s.heartbeatIntervalMs())
      .put("allowlist", new JsonArray(s.allowlist()))
      .put("outputCapBytes", s.outputCapBytes())
      .put("tools", s.tools().toJson());
    return SecretMasker.maskTree(conf);
  }
}
