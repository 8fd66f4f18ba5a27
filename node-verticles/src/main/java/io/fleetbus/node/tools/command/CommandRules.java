package io.fleetbus.node.tools.command;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Optional per-program argument rules for run_command, from the node's config, e.g.
 * {@code "apt": {"subcommands": ["list", "show"], "flags": ["--installed"], "separator": true}}:
 * the first argument must be a listed subcommand, options must be listed flags, and with
 * {@code separator} a {@code --} goes before the first user value so it can never act as an option.
 */
public final class CommandRules {
  private final JsonObject rules;

  public CommandRules(JsonObject rules) {
    this.rules = rules == null ? new JsonObject() : rules.copy();
  }

  /** The argv to run: checked against the program's rule, with the separator inserted when asked. */
  public List<String> apply(List<String> argv) {
    JsonObject rule = rules.getJsonObject(argv.get(0));
    if (rule == null) {
      return argv;
    }
    String program = argv.get(0);
    int next = 1;
    JsonArray subcommands = rule.getJsonArray("subcommands");
    if (subcommands != null) {
      if (argv.size() < 2 || !subcommands.contains(argv.get(1))) {
        throw FailureCode.FORBIDDEN.exception(program + ": the subcommand " + (argv.size() < 2 ? "is missing" : "'"
          + argv.get(1) + "' is not allowed on this node") + "; allowed: " + subcommands.encode());
      }
      next = 2;
    }
    JsonArray flags = rule.getJsonArray("flags");
    List<String> out = new ArrayList<>(argv.subList(0, next));
    boolean separated = false;
    for (String arg : argv.subList(next, argv.size())) {
      if (!separated && arg.equals("--")) {
        separated = true;
        out.add(arg);
        continue;
      }
      if (!separated && arg.startsWith("-")) {
        String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
        if (flags != null && !flags.contains(name)) {
          throw FailureCode.FORBIDDEN.exception(program + ": the option '" + name + "' is not allowed on this node; allowed: "
            + flags.encode());
        }
        out.add(arg);
        continue;
      }
      if (!separated && rule.getBoolean("separator", false)) {
        out.add("--");
        separated = true;
      }
      out.add(arg);
    }
    return out;
  }
}
