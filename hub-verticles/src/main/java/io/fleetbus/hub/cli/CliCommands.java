package io.fleetbus.hub.cli;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** The CLI's subcommands: each is one REST request. */
final class CliCommands {
  private CliCommands() {
  }

  abstract static class Base implements Callable<Integer> {
    @ParentCommand
    FleetbusCli cli;

    static String seg(String s) {
      return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }
  }

  @Command(name = "nodes", description = "List the nodes, or show one")
  static final class Nodes extends Base {
    @Parameters(arity = "0..1", paramLabel = "NODE")
    String node;

    @Override
    public Integer call() {
      return cli.client().get(node == null ? "/api/v1/nodes" : "/api/v1/nodes/" + seg(node), Map.of());
    }
  }

  @Command(name = "tools", description = "The tools your roles may use")
  static final class Tools extends Base {
    @Override
    public Integer call() {
      return cli.client().get("/api/v1/tools", Map.of());
    }
  }

  @Command(name = "call", description = "Call TOOL on NODE; arguments as --arg k=v (JSON values allowed) or --json")
  static final class Call extends Base {
    @Parameters(index = "0", paramLabel = "NODE")
    String node;
    @Parameters(index = "1", paramLabel = "TOOL")
    String tool;
    @Option(names = "--arg", paramLabel = "KEY=VALUE", description = "one argument; VALUE is read as JSON when it parses")
    List<String> args = List.of();
    @Option(names = "--json", paramLabel = "OBJECT", description = "all arguments as one JSON object")
    String json;
    @Option(names = "--wait", paramLabel = "SECONDS", description = "for tier 3: wait this long for approval and result")
    long wait;

    @Override
    public Integer call() {
      JsonObject body;
      try {
        body = json == null ? new JsonObject() : new JsonObject(json);
      } catch (DecodeException e) {
        cli.err.println("fleetbus: --json is not a JSON object: " + e.getMessage());
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
      return cli.client().post(path, body, wait);
    }

    private static Object value(String text) {
      try {
        return Json.decodeValue(text);
      } catch (DecodeException e) {
        return text;
      }
    }
  }

  @Command(name = "result", description = "A call's status and result")
  static final class Result extends Base {
    @Parameters(paramLabel = "CALL_ID")
    String callId;
    @Option(names = "--wait", paramLabel = "SECONDS")
    Long wait;

    @Override
    public Integer call() {
      Map<String, String> q = new LinkedHashMap<>();
      q.put("wait", wait == null ? null : wait.toString());
      return cli.client().get("/api/v1/calls/" + seg(callId), q);
    }
  }

  @Command(name = "cancel", description = "Withdraw a pending call or stop a running one")
  static final class Cancel extends Base {
    @Parameters(paramLabel = "CALL_ID")
    String callId;

    @Override
    public Integer call() {
      return cli.client().post("/api/v1/calls/" + seg(callId) + "/cancel", null, 0);
    }
  }

  @Command(name = "approvals", description = "List approvals")
  static final class Approvals extends Base {
    @Option(names = "--status", description = "pending, approved, denied, expired or cancelled")
    String status;

    @Override
    public Integer call() {
      Map<String, String> q = new LinkedHashMap<>();
      q.put("status", status);
      return cli.client().get("/api/v1/approvals", q);
    }
  }

  @Command(name = "approve", description = "Approve a pending call (role approver or admin)")
  static final class Approve extends Base {
    @Parameters(paramLabel = "APPROVAL_ID")
    String id;
    @Option(names = "--reason")
    String reason;

    @Override
    public Integer call() {
      return cli.client().post("/api/v1/approvals/" + seg(id) + "/approve", new JsonObject().put("reason", reason), 0);
    }
  }

  @Command(name = "deny", description = "Deny a pending call (role approver or admin)")
  static final class Deny extends Base {
    @Parameters(paramLabel = "APPROVAL_ID")
    String id;
    @Option(names = "--reason", required = true)
    String reason;

    @Override
    public Integer call() {
      return cli.client().post("/api/v1/approvals/" + seg(id) + "/deny", new JsonObject().put("reason", reason), 0);
    }
  }

  @Command(name = "enroll", description = "Create a one-time enrollment token for a new node")
  static final class Enroll extends Base {
    @Option(names = "--node", description = "the node id the token is for")
    String node;
    @Option(names = "--ttl-minutes")
    Integer ttlMinutes;

    @Override
    public Integer call() {
      return cli.client().post("/api/v1/enrollments", new JsonObject().put("nodeId", node).put("ttlMinutes", ttlMinutes), 0);
    }
  }

  @Command(name = "rekey", description = "Rotate a node's credential")
  static final class Rekey extends Base {
    @Parameters(paramLabel = "NODE")
    String node;

    @Override
    public Integer call() {
      return cli.client().post("/api/v1/nodes/" + seg(node) + "/rekey", null, 0);
    }
  }

  @Command(name = "audit", description = "The audit trail")
  static final class Audit extends Base {
    @Option(names = "--node")
    String node;
    @Option(names = "--tool")
    String tool;
    @Option(names = "--principal")
    String principal;
    @Option(names = "--limit")
    Integer limit;

    @Override
    public Integer call() {
      Map<String, String> q = new LinkedHashMap<>();
      q.put("node", node);
      q.put("tool", tool);
      q.put("principal", principal);
      q.put("limit", limit == null ? null : limit.toString());
      return cli.client().get("/api/v1/audit", q);
    }
  }
}
