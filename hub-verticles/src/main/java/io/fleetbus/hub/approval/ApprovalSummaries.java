package io.fleetbus.hub.approval;

import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/**
 * The human summary of a tier-3 call: who wants what where, then exactly what will happen — the
 * command and its arguments, the script, or the diff a file change makes.
 */
public final class ApprovalSummaries {
  private final FileChangePreview files;

  public ApprovalSummaries(Vertx vertx, ToolCatalog catalog) {
    this.files = new FileChangePreview(vertx, catalog);
  }

  public Future<String> summarize(ToolCall call, ToolSpec spec) {
    JsonObject args = call.args();
    String head = call.principal() + " asks to ";
    // a call by labels was resolved to its nodes before it parked: the person sees every machine it will touch
    String where = call.nodeId() != null ? " on node " + call.nodeId()
      : " on nodes " + call.selector().getJsonArray("nodes", new io.vertx.core.json.JsonArray()).encode();
    if (FileChangePreview.TOOLS.contains(spec.name()) && call.nodeId() != null) {
      return files.describe(call, spec.name())
        .map(diff -> head + spec.name() + " " + args.getString("path") + where + ":\n" + diff);
    }
    String text = switch (spec.name()) {
      case "run_command" -> head + "run `" + args.getString("command") + "`" + where
        + (args.getJsonArray("args") == null || args.getJsonArray("args").isEmpty() ? ""
          : "\nextra arguments, each passed as one word: " + args.getJsonArray("args").encode())
        + (args.getString("cwd") == null ? "" : "\nin folder: " + args.getString("cwd"))
        + (args.getJsonObject("env") == null || args.getJsonObject("env").isEmpty() ? ""
          : "\nwith environment: " + args.getJsonObject("env").encode())
        + (args.getValue("timeoutMs") != null ? "\ntimeout: " + args.getValue("timeoutMs") + " ms"
          : "\ntimeout: " + args.getValue("timeout_seconds", "default") + " s");
      case "run_script" -> head + "run a " + args.getString("interpreter", args.getString("shell", "shell")) + " script"
        + where + (args.getString("working_directory") == null ? "" : " in " + args.getString("working_directory"))
        + ":\n" + args.getString("script", args.getString("code", ""));
      default -> head + "run " + spec.name() + where + " with arguments " + args.encode();
    };
    return Future.succeededFuture(text);
  }
}
