package io.fleetbus.node.tools.command;

import io.fleetbus.shared.bus.FailureCode;
import java.util.List;
import java.util.Set;

/**
 * Which programs run_command may start: the first word must be a bare name on the node's list
 * (paths are refused, so a look-alike binary elsewhere on disk cannot stand in for an allowed one).
 */
public final class CommandAllowlist {
  private final Set<String> allowed;

  public CommandAllowlist(List<String> allowed) {
    this.allowed = Set.copyOf(allowed);
  }

  public void check(String program) {
    if (program.contains("/") || program.contains("\\")) {
      throw FailureCode.FORBIDDEN.exception("'" + program + "' is a path: run_command takes a program name from the allowlist");
    }
    if (!allowed.contains(program)) {
      throw FailureCode.FORBIDDEN.exception("'" + program + "' is not on this node's run_command allowlist "
        + allowed.stream().sorted().toList());
    }
  }
}
