package io.fleetbus.node.processes;

import io.fleetbus.node.tools.command.ArgumentGrammar;
import io.fleetbus.node.tools.command.CommandAllowlist;
import io.fleetbus.node.tools.command.CommandRules;
import io.fleetbus.shared.bus.FailureCode;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What add_process and update_process (tier 2: no person approves) may start: what run_command could — a program on
 * the node's allowlist (by name, found on PATH and compared by its real file, or by its full path for a program that
 * is on no PATH, e.g. {@code "/opt/app/bin/server"}), with arguments the argument grammar lets through (no
 * interpreter, no {@code bash -c}, no wrapper around an unlisted program). Anything else runs as a job (job_launch,
 * tier 3, approved by a person).
 */
public final class ProcessPrograms implements Consumer<ProcessConfig> {
  private final Supplier<Set<String>> allowlist;
  private final CommandRules rules;

  /** @param rules run_command's per-program rules (commands.rules: apt's subcommands and the like) */
  public ProcessPrograms(Supplier<Set<String>> allowlist, CommandRules rules) {
    this.allowlist = allowlist;
    this.rules = rules;
  }

  @Override
  public void accept(ProcessConfig config) {
    Set<String> allowed = allowlist.get();
    Path exe = Path.of(config.exePath());
    String name = exe.getFileName() == null ? config.exePath() : exe.getFileName().toString();
    if (!allowed.contains(config.exePath()) && allowed.stream().filter(n -> !n.contains("/"))
      .noneMatch(n -> onPath(n).map(real(exe)::equals).orElse(false))) {
      throw FailureCode.FORBIDDEN.exception("'" + config.exePath() + "' is not on this node's allowlist: add_process and"
        + " update_process (tier 2, no approval) start only what run_command could; add '" + name + "' (or the full"
        + " path) to `allowlist` in the node's conf, or run it as a job (job_launch: tier 3, a person approves)");
    }
    List<String> argv = new ArrayList<>(config.argv());
    argv.set(0, name);
    try {
      ArgumentGrammar.check(argv, new CommandAllowlist(allowlist)::check);
      rules.apply(argv);
    } catch (RuntimeException e) {
      throw FailureCode.FORBIDDEN.exception("add_process: " + e.getMessage() + " (a managed process passes the checks"
        + " run_command makes; run it as a job with job_launch: tier 3, a person approves)");
    }
  }

  private static java.util.Optional<Path> onPath(String program) {
    String path = System.getenv("PATH");
    for (String dir : (path == null ? "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" : path).split(File.pathSeparator)) {
      Path p = Path.of(dir.isBlank() ? "." : dir, program);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return java.util.Optional.of(real(p));
      }
    }
    return java.util.Optional.empty();
  }

  private static Path real(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return p.toAbsolutePath().normalize();
    }
  }
}
