package io.fleetbus.node.tools.command;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.Unsupported;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.fault.FaultSwitch;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * run_command: one program, no shell, capped output, bounded time. The first word must be on the
 * allowlist (or, on root and sudo nodes, one of the configured package managers); per-program rules,
 * the path scope for arguments and working folder, and on sudo nodes the destructive patterns apply.
 */
public final class RunCommandTool implements ToolHandler {
  private final CommandAllowlist allowlist;
  private final HostCommands host;
  private final PathScope scope;
  private final CommandRules rules;
  private final DestructivePatterns destructive;
  private final Set<String> packageManagers;
  private final List<String> elevateWith;
  private final CommandEnv env;

  /**
   * @param destructive null where no destructive-pattern wall applies (root nodes)
   */
  public RunCommandTool(CommandAllowlist allowlist, HostCommands host, PathScope scope, CommandRules rules,
                        DestructivePatterns destructive, List<String> packageManagers, List<String> elevateWith) {
    this(allowlist, host, scope, rules, destructive, packageManagers, elevateWith,
      io.fleetbus.node.settings.ToolSettings.DEFAULT_COMMAND_ENV);
  }

  /** @param envNames the variables the call's {@code env} may set (conf {@code commands.env}) */
  public RunCommandTool(CommandAllowlist allowlist, HostCommands host, PathScope scope, CommandRules rules,
                        DestructivePatterns destructive, List<String> packageManagers, List<String> elevateWith,
                        List<String> envNames) {
    this.env = new CommandEnv(envNames);
    this.allowlist = allowlist;
    this.host = host;
    this.scope = scope;
    this.rules = rules;
    this.destructive = destructive;
    this.packageManagers = Set.copyOf(packageManagers);
    this.elevateWith = List.copyOf(elevateWith);
  }

  /** What a command tool would start: argv (with the elevation wrapper for a package manager), where, and with what. */
  record Plan(List<String> argv, Path cwd, Map<String, String> env) {
    Plan(List<String> argv, Path cwd) {
      this(argv, cwd, Map.of());
    }
  }

  /**
   * The seed's fields too: {@code timeoutMs} (seed 003) overrides {@code timeout_seconds}; {@code env} adds variables
   * from the node's list; {@code user_session} (seed 000, a desktop session) has no meaning for a node agent on Linux:
   * the command runs as usual and the answer says so. The answer carries {@code signal} (seed 003).
   */
  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws Exception {
    Plan plan = plan(args);
    long timeoutMs = args.getValue("timeoutMs") instanceof Number ms ? ms.longValue()
      : args.getInteger("timeout_seconds") * 1000L;
    JsonObject result = host.run(plan.argv(), plan.cwd(), plan.env(), timeoutMs, ctx.control())
      .put("argv", new JsonArray(plan.argv()));
    if (host.confinement().active()) {
      io.fleetbus.node.confine.ConfinementNotes.explain(result); // a refusal by the kernel, in words (and conf keys)
    }
    if (Boolean.TRUE.equals(args.getValue("user_session"))) {
      Unsupported.note(result, "user_session", "the node agent is a service with no desktop session to run in; the"
        + " command ran in the node's own session (no display)");
    }
    return result;
  }

  @Override
  public void check(JsonObject args) {
    plan(args);
  }

  /** Every check, in the order run applies them, and nothing started: the argv to run, or the refusal. */
  Plan plan(JsonObject args) {
    if (!host.spawningAllowed()) {
      throw FailureCode.FORBIDDEN.exception("this node is unprivileged: run_command starts processes, which it never does");
    }
    host.confinement().requireForCommands();
    List<String> words = new ArrayList<>(CommandLine.split(args.getString("command")));
    JsonArray extra = args.getJsonArray("args", new JsonArray());
    for (Object a : extra) {
      String s = (String) a;
      CommandLine.checkArgument(s);
      words.add(s);
    }
    allowlist.check(words.get(0));
    if (!FaultSwitch.NO_ARGUMENT_GRAMMAR.on()) { // tests only: show what the grammar alone stops
      ArgumentGrammar.check(words, allowlist::check);
    }
    List<String> argv = rules.apply(words);
    if (destructive != null) {
      destructive.check("the command", String.join(" ", argv));
    }
    Path cwd = null;
    if (args.getString("cwd") != null) {
      cwd = scope.existing("cwd", args.getString("cwd"));
      if (!Files.isDirectory(cwd)) {
        throw FailureCode.BAD_REQUEST.exception("cwd '" + args.getString("cwd") + "' is not a folder on this node");
      }
    }
    ArgumentPaths.check(scope, cwd == null ? Path.of("").toAbsolutePath() : cwd, argv.subList(1, argv.size()),
      host.confinement().active());
    List<String> run = new ArrayList<>();
    if (packageManagers.contains(argv.get(0))) {
      run.addAll(elevateWith);
    }
    run.addAll(argv);
    return new Plan(run, cwd, env.check(args.getJsonObject("env")));
  }
}
