package io.fleetbus.node.tools.command;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * run_script: a script for bash, sh or pwsh. No allowlist (a person approved it), but the node logs
 * every run with the script's digest (never its text, which may hold secrets), sudo nodes still apply
 * the destructive patterns, and the working folder must lie in the path scope.
 */
public final class RunScriptTool implements ToolHandler {
  private static final Logger LOG = LoggerFactory.getLogger(RunScriptTool.class);

  private final HostCommands host;
  private final PathScope scope;
  private final DestructivePatterns destructive;

  /** @param destructive null where no destructive-pattern wall applies (root nodes) */
  public RunScriptTool(HostCommands host, PathScope scope, DestructivePatterns destructive) {
    this.host = host;
    this.scope = scope;
    this.destructive = destructive;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws Exception {
    RunCommandTool.Plan plan = plan(args);
    String script = plan.argv().get(plan.argv().size() - 1);
    String interpreter = args.getString("interpreter");
    LOG.info("script run [call: {}, principal: {}, interpreter: {}, bytes: {}, sha256: {}]", ctx.callId(), ctx.principal(),
      interpreter, script.length(), sha256(script));
    JsonObject result = host.run(plan.argv(), plan.cwd(), args.getInteger("timeout_seconds") * 1000L, ctx.control())
      .put("interpreter", interpreter);
    return host.confinement().active() ? io.fleetbus.node.confine.ConfinementNotes.explain(result) : result;
  }

  @Override
  public void check(JsonObject args) {
    plan(args);
  }

  /** Every check run applies, nothing started: the interpreter's argv (the script last) and where, or the refusal. */
  private RunCommandTool.Plan plan(JsonObject args) {
    host.confinement().requireForCommands();
    String script = args.getString("script", args.getString("command"));
    if (args.containsKey("script") && args.containsKey("command")) {
      throw FailureCode.BAD_REQUEST.exception("give the script as 'script' or as 'command', not both");
    }
    if (script.indexOf(0) >= 0) {
      throw FailureCode.BAD_REQUEST.exception("script contains a NUL character");
    }
    String interpreter = args.getString("interpreter");
    Path program = host.require(interpreter, "pwsh".equals(interpreter) ? "PowerShell (run_powershell, or run_script"
      + " with interpreter pwsh)" : "run_script with " + interpreter);
    if (destructive != null) {
      destructive.check("the script", script);
    }
    Path cwd = null;
    if (args.getString("working_directory") != null) {
      cwd = scope.existing("working_directory", args.getString("working_directory"));
      if (!Files.isDirectory(cwd)) {
        throw FailureCode.BAD_REQUEST.exception("working_directory '" + args.getString("working_directory") + "' is not a folder");
      }
    }
    return new RunCommandTool.Plan("pwsh".equals(interpreter)
      ? List.of(program.toString(), "-NoProfile", "-NonInteractive", "-Command", script)
      : List.of(program.toString(), "-c", script), cwd);
  }

  private static String sha256(String s) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
  }
}
