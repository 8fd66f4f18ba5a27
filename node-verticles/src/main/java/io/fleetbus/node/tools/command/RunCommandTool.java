package io.fleetbus.node.tools.command;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** run_command: one allowlisted program, no shell, capped output, bounded time. */
public final class RunCommandTool implements ToolHandler {
  private final CommandAllowlist allowlist;
  private final ProcessRunner runner;

  public RunCommandTool(CommandAllowlist allowlist, ProcessRunner runner) {
    this.allowlist = allowlist;
    this.runner = runner;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws Exception {
    List<String> argv = new ArrayList<>(CommandLine.split(args.getString("command")));
    JsonArray extra = args.getJsonArray("args", new JsonArray());
    for (Object a : extra) {
      String s = (String) a;
      CommandLine.checkArgument(s);
      argv.add(s);
    }
    allowlist.check(argv.get(0));
    Path cwd = null;
    if (args.getString("cwd") != null) {
      cwd = Path.of(args.getString("cwd"));
      if (!Files.isDirectory(cwd)) {
        throw FailureCode.BAD_REQUEST.exception("cwd '" + cwd + "' is not a folder on this node");
      }
    }
    JsonObject result = runner.run(argv, cwd, args.getInteger("timeout_seconds") * 1000L, ctx.control());
    return result.put("argv", new JsonArray(argv));
  }
}
