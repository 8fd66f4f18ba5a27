package io.fleetbus.node.tools.system;

import io.fleetbus.node.tools.InstantToolHandler;
import io.fleetbus.node.tools.ToolHandler;
import java.util.Map;

/** The read-only machine tools backed by {@link SystemProbe}. */
public final class SystemTools {
  private SystemTools() {
  }

  public static Map<String, ToolHandler> handlers(SystemProbe probe, String agentVersion) {
    return Map.of(
      "get_system_info", (args, ctx) -> probe.systemInfo(agentVersion),
      "get_disk_usage", (args, ctx) -> probe.diskUsage(),
      "get_running_processes", (args, ctx) -> probe.runningProcesses(args.getString("name_filter"), args.getInteger("limit")),
      // from memory only (the data folder is probed with each heartbeat's sample): no worker hop (issue 17)
      "get_agent_health", (InstantToolHandler) (args, ctx) -> ctx.status().toJson()
        .put("nodeId", ctx.settings().nodeId())
        .put("capabilityTier", ctx.settings().capabilityTier())
        .put("probes", new io.vertx.core.json.JsonObject()
          .put("dataDirWritable", ctx.status().dataDirWritable())
          .put("probedAt", ctx.status().dataDirProbedAt())));
  }
}
