package io.fleetbus.node.tools;

import io.fleetbus.node.confine.Confinement;
import io.fleetbus.node.confine.ProcessTrees;
import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.RuntimeConfig;
import io.fleetbus.node.settings.ToolSettings;
import io.fleetbus.node.tools.command.CommandTools;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.node.tools.disk.CleanDiskSpaceTool;
import io.fleetbus.node.tools.env.AgentConfigTool;
import io.fleetbus.node.tools.env.GetEnvTool;
import io.fleetbus.node.tools.files.FileTools;
import io.fleetbus.node.tools.gpu.GpuTools;
import io.fleetbus.node.tools.gpu.NvidiaSmi;
import io.fleetbus.node.tools.logs.AgentLogsTool;
import io.fleetbus.node.tools.logs.EventLogsTool;
import io.fleetbus.node.tools.logs.ReadLogsTool;
import io.fleetbus.node.tools.network.NetworkInfoTool;
import io.fleetbus.node.tools.osprocess.ListProcessesTool;
import io.fleetbus.node.tools.osprocess.ManageProcessTool;
import io.fleetbus.node.tools.osprocess.ProcessGuard;
import io.fleetbus.node.tools.power.PowerSchedule;
import io.fleetbus.node.tools.power.PowerTools;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.node.tools.services.ServiceTools;
import io.fleetbus.node.tools.services.Systemd;
import io.fleetbus.node.tools.system.SystemProbe;
import io.fleetbus.node.tools.system.SystemTools;
import java.util.HashMap;
import java.util.Map;
import oshi.SystemInfo;

/** The machine tools of issue 4, each behind this node's sandbox (path scope, spawn door, caps). */
public final class NodeTools {
  private NodeTools() {
  }

  public static Map<String, ToolHandler> handlers(NodeSettings settings, SystemProbe probe, String agentVersion) {
    return handlers(settings, RuntimeConfig.none(settings), probe, agentVersion);
  }

  /** The tools, with the allowlist and log paths the hub may change at run time (config_update). */
  public static Map<String, ToolHandler> handlers(NodeSettings settings, RuntimeConfig runtime, SystemProbe probe,
                                                  String agentVersion) {
    return handlers(settings, runtime, probe, agentVersion,
      settings.unprivileged() ? Confinement.NONE : Confinement.of(settings));
  }

  /** What the kernel lets started processes execute: the allowlist (as it is now) and the package managers. */
  public static java.util.function.Supplier<java.util.Set<String>> programs(NodeSettings settings, RuntimeConfig runtime) {
    return () -> {
      java.util.Set<String> names = new java.util.HashSet<>(runtime.allowlist());
      names.addAll(settings.tools().packageManagers());
      return names;
    };
  }

  /** As above, with the node's one confinement (shared with its jobs). */
  public static Map<String, ToolHandler> handlers(NodeSettings settings, RuntimeConfig runtime, SystemProbe probe,
                                                  String agentVersion, Confinement confinement) {
    ToolSettings t = settings.tools();
    // the file tools and the kernel rulesets check one grant (and share what it learnt: folders found marked private)
    PathScope scope = confinement.grant().map(PathScope::of).orElseGet(() -> PathScope.of(settings));
    // an unprivileged node starts no processes: every tool that would goes through this door
    java.util.function.Supplier<java.util.Set<String>> programs = programs(settings, runtime);
    HostCommands host = new HostCommands(!settings.unprivileged(),
      new ProcessRunner(settings.outputCapBytes(), ProcessTrees.get().around(confinement.spawner(programs))), confinement);
    SystemInfo oshi = new SystemInfo();
    Map<String, ToolHandler> h = new HashMap<>(SystemTools.handlers(probe, agentVersion));
    h.putAll(GpuTools.handlers(new NvidiaSmi(host), probe, agentVersion));
    h.putAll(FileTools.handlers(scope, host));
    h.putAll(CommandTools.handlers(settings, runtime::allowlist, host, scope));
    h.putAll(ServiceTools.handlers(new Systemd(host), t.protectedProcesses()));
    h.putAll(PowerTools.handlers(new PowerSchedule(host, t.power()), PowerTools.REBOOT_REQUIRED));
    h.put("read_logs", new ReadLogsTool(scope, () -> runtime.logPaths(t.logPaths()), t.logMaxLines()));
    h.put("get_agent_logs", new AgentLogsTool());
    h.put("get_event_logs", new EventLogsTool(host));
    h.put("get_env", new GetEnvTool(scope));
    h.put("get_agent_config", new AgentConfigTool(agentVersion, confinement.report()));
    h.put("get_network_info", new NetworkInfoTool(oshi));
    h.put("list_processes", new ListProcessesTool(oshi));
    h.put("manage_process", new ManageProcessTool(oshi, new ProcessGuard(t.protectedProcesses())));
    h.put("clean_disk_space", new CleanDiskSpaceTool(scope));
    return h;
  }
}
