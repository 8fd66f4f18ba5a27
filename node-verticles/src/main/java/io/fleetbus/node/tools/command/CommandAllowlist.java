package io.fleetbus.node.tools.command;

import io.fleetbus.shared.bus.FailureCode;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Which programs run_command may start: the first word must be a bare name on the node's list
 * (paths are refused, so a look-alike binary elsewhere on disk cannot stand in for an allowed one).
 */
public final class CommandAllowlist {
  private final Supplier<Set<String>> allowed;

  public CommandAllowlist(List<String> allowed) {
    Set<String> fixed = Set.copyOf(allowed);
    this.allowed = () -> fixed;
  }

  /** An allowlist the hub may change at run time (config_update). */
  public CommandAllowlist(Supplier<Set<String>> allowed) {
    this.allowed = allowed;
  }

  public void check(String program) {
    Set<String> allowed = this.allowed.get();
    if (program.contains("/") || program.contains("\\")) {
      throw FailureCode.FORBIDDEN.exception("'" + program + "' is a path: run_command takes a program name from the allowlist");
    }
    if (!allowed.contains(program)) {
      throw FailureCode.FORBIDDEN.exception("'" + program + "' is not on this node's run_command allowlist "
        + allowed.stream().sorted().toList());
    }
  }
}
