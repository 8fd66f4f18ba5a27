package io.fleetbus.hub.cli;

import io.fleetbus.hub.cli.HubClient.Answer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The CLI's subcommands about calls and their approvals: call a tool, follow or cancel a call, list and decide approvals. */
final class CallCommands {
  private CallCommands() {
  }

  @Command(name = "call", description = {"Call TOOL on NODE.", "Arguments as --arg KEY=VALUE (JSON values allowed) or"
    + " --args OBJECT. A tier-3 tool waits for a second person's approval: exit 3 with the approval and call ids."})
  static final class Call extends CliCommands.Base {
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
  static final class Result extends CliCommands.Base {
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
  static final class Cancel extends CliCommands.Base {
    @Parameters(paramLabel = "CALL_ID")
    String callId;

    @Override
    public Integer call() {
      return show(cli.client().post("/api/v1/calls/" + seg(callId) + "/cancel", null, 0), Views::cancelled);
    }
  }

  @Command(name = "approvals", description = "List approvals: pending ones with the time left, decided ones with who and why")
  static final class Approvals extends CliCommands.Base {
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
  static final class Approve extends CliCommands.Base {
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
  static final class Deny extends CliCommands.Base {
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
}
