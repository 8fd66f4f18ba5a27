package io.fleetbus.node.tools.command;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.ToolSettings;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.sandbox.PathScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** run_command and run_script with this node's allowlist, rules and walls. */
public final class CommandTools {
  private CommandTools() {
  }

  public static Map<String, ToolHandler> handlers(NodeSettings settings, HostCommands host, PathScope scope) {
    java.util.Set<String> fixed = java.util.Set.copyOf(settings.allowlist());
    return handlers(settings, () -> fixed, host, scope);
  }

  /** As above, with an allowlist the hub may change at run time; package managers stay allowed. */
  public static Map<String, ToolHandler> handlers(NodeSettings settings, java.util.function.Supplier<java.util.Set<String>> allowlist,
                                                  HostCommands host, PathScope scope) {
    ToolSettings t = settings.tools();
    boolean sudo = "sudo".equals(settings.capabilityTier());
    DestructivePatterns wall = sudo ? new DestructivePatterns(t.destructivePatterns()) : null;
    java.util.function.Supplier<java.util.Set<String>> allowed = () -> {
      java.util.Set<String> names = new java.util.HashSet<>(allowlist.get());
      names.addAll(t.packageManagers());
      return names;
    };
    return Map.of(
      "run_command", new RunCommandTool(new CommandAllowlist(allowed), host, scope, new CommandRules(t.commandRules()),
        wall, t.packageManagers(), t.elevateWith(), t.commandEnv()),
      "run_script", new RunScriptTool(host, scope, wall));
  }
}
