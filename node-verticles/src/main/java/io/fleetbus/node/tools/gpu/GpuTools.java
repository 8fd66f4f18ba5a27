package io.fleetbus.node.tools.gpu;

import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.system.SystemProbe;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/** get_gpu_processes, and get_system_info with NVIDIA figures added where nvidia-smi answers. */
public final class GpuTools {
  private GpuTools() {
  }

  public static Map<String, ToolHandler> handlers(NvidiaSmi smi, SystemProbe probe, String agentVersion) {
    ToolHandler processes = (args, ctx) -> {
      JsonArray apps = smi.computeApps();
      return new JsonObject().put("source", "nvidia-smi").put("processes", apps).put("count", apps.size());
    };
    ToolHandler systemInfo = (args, ctx) -> {
      JsonObject info = probe.systemInfo(agentVersion);
      smi.gpusIfPresent().ifPresent(g -> info.put("nvidia", g));
      return info;
    };
    return Map.of("get_gpu_processes", processes, "get_system_info", systemInfo);
  }
}
