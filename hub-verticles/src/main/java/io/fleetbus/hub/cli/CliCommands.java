package io.fleetbus.hub.cli;

import io.fleetbus.hub.cli.HubClient.Answer;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The CLI's subcommands about the fleet itself (nodes, tools, enrollment, rekey) and help, with what every subcommand
 * shares ({@link Base}): each is one REST request, its answer printed as a table (or as JSON with --json). Calls and
 * approvals are {@link CallCommands}, the audit trail {@link AuditCommand}.
 */
final class CliCommands {
  private CliCommands() {
  }

  abstract static class Base implements Callable<Integer> {
    @ParentCommand
    FleetbusCli cli;

    static String seg(String s) {
      return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }

    int show(Answer answer, View view) {
      return show(cli, answer, view);
    }

    /** The answer as JSON (--json) or as {@code view} draws it; the exit code follows its status. */
    static int show(FleetbusCli cli, Answer answer, View view) {
      PrintWriter out = cli.out;
      if (cli.json) {
        out.println(answer.body().encodePrettily());
      } else {
        view.draw(out, Text.local(), answer.body());
      }
      out.flush();
      return HubClient.exitCode(answer.status());
    }
  }

  interface View {
    void draw(PrintWriter out, Text text, JsonObject body);
  }

  @Command(name = "nodes", description = {"List the nodes, or show one in detail.", "The list: state, tier, labels, CPU,"
    + " memory, disk and last heartbeat. One node: also its uptime, load, confinement, tools and lifecycle."})
  static final class Nodes extends Base {
    @Parameters(arity = "0..1", paramLabel = "NODE", description = "a node id: show this node in detail")
    String node;

    @Override
    public Integer call() {
      if (node == null) {
        return show(cli.client().get("/api/v1/nodes", Map.of()), Views::nodes);
      }
      return show(cli.client().get("/api/v1/nodes/" + seg(node), Map.of()), Views::node);
    }
  }

  @Command(name = "tools", description = "The tools your roles may use: name, tier, where it runs, what it does")
  static final class Tools extends Base {
    @Override
    public Integer call() {
      return show(cli.client().get("/api/v1/tools", Map.of()), Views::tools);
    }
  }

  @Command(name = "enroll", description = "Create a one-time enrollment token for a new node (admin)")
  static final class Enroll extends Base {
    @Option(names = "--node", description = "the node id the token is for")
    String node;
    @Option(names = "--ttl-minutes", description = "how long the token stays valid")
    Integer ttlMinutes;

    @Override
    public Integer call() {
      return show(cli.client().post("/api/v1/enrollments", new JsonObject().put("nodeId", node).put("ttlMinutes", ttlMinutes), 0),
        Views::enrolled);
    }
  }

  @Command(name = "rekey", description = "Rotate a node's credential (admin)")
  static final class Rekey extends Base {
    @Parameters(paramLabel = "NODE")
    String node;

    @Override
    public Integer call() {
      return show(cli.client().post("/api/v1/nodes/" + seg(node) + "/rekey", null, 0), Views::rekeyed);
    }
  }

  @Command(name = "help", helpCommand = true, description = "Show the help of a command: fleetbus help audit verify")
  static final class Help implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "the command, with its subcommand if any")
    List<String> path = List.of();

    @Override
    public Integer call() {
      CommandLine cmd = spec.root().commandLine();
      for (String name : path) {
        cmd = cmd.getSubcommands().get(name);
        if (cmd == null) {
          spec.commandLine().getErr().println("fleetbus: no command '" + String.join(" ", path) + "' (fleetbus --help lists them)");
          return 2;
        }
      }
      cmd.usage(spec.commandLine().getOut());
      return 0;
    }
  }
}
