package io.fleetbus.node.tools.command;

import io.fleetbus.node.NodeSettings;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.ToolSettings;
import io.fleetbus.node.tools.sandbox.PathScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** run_command and run_script with this node's allowlist, rules and walls. */
public final class CommandTools {
  private CommandTools() {
  }

  public static Map<String, ToolHandler> handlers(NodeSettings settings, HostCommands host, PathScope scope) {
    ToolSettings t = settings.tools();
    boolean sudo = "sudo".equals(settings.capabilityTier());
    DestructivePatterns wall = sudo ? new DestructivePatterns(t.destructivePatterns()) : null;
    List<String> allowed = new ArrayList<>(settings.allowlist());
    allowed.addAll(t.packageManagers());
    return Map.of(
      "run_command", new RunCommandTool(new CommandAllowlist(allowed), host, scope, new CommandRules(t.commandRules()),
        wall, t.packageManagers(), t.elevateWith()),
      "run_script", new RunScriptTool(host, scope, wall));
  }
}
