package io.fleetbus.hub.cli;

import io.fleetbus.hub.cli.HubClient.Answer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
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

/** The CLI's subcommands: each is one REST request, its answer printed as a table (or as JSON with --json). */
final class CliCommands {
  private CliCommands() {
  }

  abstract static class Base implements Callable<Integer> {
    @ParentCommand
    FleetbusCli cli;

    static String seg(String s) {
      return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** The answer as JSON (--json) or as {@code view} draws it; the exit code follows its status. */
    int show(Answer answer, View view) {
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

  @Command(name = "call", description = {"Call TOOL on NODE.", "Arguments as --arg KEY=VALUE (JSON values allowed) or"
    + " --args OBJECT. A tier-3 tool waits for a second person's approval: exit 3 with the approval and call ids."})
  static final class Call extends Base {
    @Parameters(index = "0", paramLabel = "NODE")
    String node;
    @Parameters(index = "1", paramLabel = "TOOL")
    String tool;
    @Option(names = "--arg", paramLabel = "KEY=VALUE", description = "one argument; VALUE is read as JSON when it parses")
    List<String> args = List.of();
    @Option(names = "--args", paramLabel = "OBJECT", description = "all arguments as one JSON object")
    String argsJson;
    @Option(names = "--wait", paramLabel = "SECONDS", description = "for tier 3: wait this long for approval and result")
    long wait;

    @Override
    public Integer call() {
      JsonObject body;
      try {
        body = argsJson == null ? new JsonObject() : new JsonObject(argsJson);
      } catch (DecodeException e) {
        cli.err.println("fleetbus: --args is not a JSON object: " + e.getMessage());
        return 2;
      }
      for (String a : args) {
        int eq = a.indexOf('=');
        if (eq < 1) {
          cli.err.println("fleetbus: --arg needs KEY=VALUE, got '" + a + "'");
          return 2;
        }
        body.put(a.substring(0, eq), value(a.substring(eq + 1)));
      }
      String path = "/api/v1/nodes/" + seg(node) + "/tools/" + seg(tool) + (wait > 0 ? "?wait=" + wait : "");
      Answer answer = cli.client().post(path, body, wait);
      if (answer.pending()) {
        cli.err.println("fleetbus: waiting for approval " + answer.body().getString("approvalId") + " (another person: fleetbus"
          + " approve " + answer.body().getString("approvalId") + "); then: fleetbus result " + answer.body().getString("callId"));
      }
      return show(answer, Views::result);
    }

    private static Object value(String text) {
      try {
        return Json.decodeValue(text);
      } catch (DecodeException e) {
        return text;
      }
    }
  }

  @Command(name = "result", description = "A call's status and result (exit 3 while it waits for approval)")
  static final class Result extends Base {
    @Parameters(paramLabel = "CALL_ID")
    String callId;
    @Option(names = "--wait", paramLabel = "SECONDS", description = "wait up to this long for the call to end")
    Long wait;

    @Override
    public Integer call() {
      Map<String, String> q = new LinkedHashMap<>();
      q.put("wait", wait == null ? null : wait.toString());
      return show(cli.client().get("/api/v1/calls/" + seg(callId), q), Views::record);
    }
  }

  @Command(name = "cancel", description = "Withdraw a pending call or stop a running one")
  static final class Cancel extends Base {
    @Parameters(paramLabel = "CALL_ID")
    String callId;

    @Override
    public Integer call() {
      return show(cli.client().post("/api/v1/calls/" + seg(callId) + "/cancel", null, 0), Views::cancelled);
    }
  }

  @Command(name = "approvals", description = "List approvals: pending ones with the time left, decided ones with who and why")
  static final class Approvals extends Base {
    @Option(names = "--status", paramLabel = "STATUS", description = "pending, approved, denied, expired or cancelled")
    String status;

    @Override
    public Integer call() {
      Map<String, String> q = new LinkedHashMap<>();
      q.put("status", status);
      return show(cli.client().get("/api/v1/approvals", q), Views::approvals);
    }
  }

  @Command(name = "approve", description = "Approve a pending call (role approver or admin; not your own call)")
  static final class Approve extends Base {
    @Parameters(paramLabel = "APPROVAL_ID")
    String id;
    @Option(names = "--reason", description = "shown to the requester and kept in the audit")
    String reason;

    @Override
    public Integer call() {
      return show(cli.client().post("/api/v1/approvals/" + seg(id) + "/approve", new JsonObject().put("reason", reason), 0),
        Views::decided);
    }
  }

  @Command(name = "deny", description = "Deny a pending call (role approver or admin)")
  static final class Deny extends Base {
    @Parameters(paramLabel = "APPROVAL_ID")
    String id;
    @Option(names = "--reason", required = true, description = "shown to the requester and kept in the audit")
    String reason;

    @Override
    public Integer call() {
      return show(cli.client().post("/api/v1/approvals/" + seg(id) + "/deny", new JsonObject().put("reason", reason), 0),
        Views::decided);
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

  @Command(name = "audit", subcommands = Audit.Verify.class, description = {
    "The audit trail, newest first (audit verify: check its hash chain).",
    "Viewers and operators see their own entries; approvers and admins see all."})
  static final class Audit extends Base {
    /** What {@code --outcome} may name: an outcome, or the decision that ended the call. */
    static final List<String> OUTCOMES = List.of("ok", "error", "cancelled", "unknown", "denied", "expired", "refused",
      "approved", "auto", "admin");

    @Option(names = "--node", description = "only this node")
    String node;
    @Option(names = "--tool", description = "only this tool")
    String tool;
    @Option(names = "--principal", description = "only this person (others than yourself: approver or admin)")
    String principal;
    @Option(names = "--outcome", paramLabel = "OUTCOME",
      description = "ok, error, cancelled or unknown; or the decision: denied, expired, refused, approved, auto, admin")
    String outcome;
    @Option(names = "--since", paramLabel = "WHEN", description = {"how far back: a duration (30s, 15m, 2h, 7d, PT90M)",
      "or a time (2026-11-25 18:00, 2026-11-25, 2026-11-25T18:00:00Z, epoch ms)"})
    String since;
    @Option(names = "--limit", description = "at most this many entries (1-1000, default 100)")
    Integer limit;

    @Override
    public Integer call() {
      if (outcome != null && !OUTCOMES.contains(outcome)) {
        cli.err.println("fleetbus: --outcome " + outcome + " is none of " + String.join(", ", OUTCOMES));
        return 2;
      }
      Long from;
      try {
        from = since == null ? null : Since.parse(since, java.time.ZoneId.systemDefault(), System.currentTimeMillis());
      } catch (IllegalArgumentException e) {
        cli.err.println("fleetbus: --since " + e.getMessage());
        return 2;
      }
      Map<String, String> q = new LinkedHashMap<>();
      q.put("node", node);
      q.put("tool", tool);
      q.put("principal", principal);
      q.put("outcome", outcome);
      q.put("since", from == null ? null : from.toString());
      q.put("limit", limit == null ? null : limit.toString());
      return show(cli.client().get("/api/v1/audit", q), Views::audit);
    }

    @Command(name = "verify", description = {"Check the audit's hash chain on the hub (approver or admin).",
      "Every record must link to the one before and match its hash, and every call this hub finished must have its"
        + " record. Exit 0 when intact, 4 when broken (the first broken record is named)."})
    static final class Verify implements Callable<Integer> {
      @ParentCommand
      Audit audit;

      @Override
      public Integer call() {
        FleetbusCli cli = audit.cli;
        Answer answer = cli.client().get("/api/v1/audit/verify", Map.of());
        int code = audit.show(answer, Views::verified);
        boolean intact = answer.body().getBoolean("ok", false)
          && answer.body().getJsonArray("unaudited", new JsonArray()).isEmpty();
        return code == 0 && !intact ? HubClient.VERIFY_FAILED : code;
      }
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
