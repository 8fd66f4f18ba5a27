package io.fleetbus.hub.mcp;

import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.shared.catalog.Tiers;
import io.fleetbus.shared.catalog.ToolSpec;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Optional;

/**
 * The fleet's tools as MCP tools: each catalogue tool the caller's role allows, with a required
 * {@code node} argument added, plus {@code list_nodes} answered by the hub itself.
 */
final class McpTools {
  static final String NODE_ARG = "node";
  static final String LIST_NODES = "list_nodes";

  private final Vertx vertx;
  private final CallSubmitter calls;

  McpTools(Vertx vertx, CallSubmitter calls) {
    this.vertx = vertx;
    this.calls = calls;
  }

  /** tools/list; in a session with tasks every tool may be called as one ({@code execution.taskSupport}). */
  JsonObject list(Caller caller, boolean tasks) {
    JsonObject list = list(caller);
    if (tasks) {
      list.getJsonArray("tools").forEach(t -> ((JsonObject) t).put("execution", new JsonObject().put("taskSupport", "optional")));
    }
    return list;
  }

  JsonObject list(Caller caller) {
    int maxTier = Tiers.maxToolTier(caller.roles());
    JsonArray tools = new JsonArray();
    if (maxTier >= 1 && calls.catalog().find(LIST_NODES).isEmpty()) {
      tools.add(listNodesTool());
    }
    calls.catalog().all().stream().filter(t -> t.tier() <= maxTier).forEach(t -> tools.add(describe(t, calls.confirmPolicy())));
    return new JsonObject().put("tools", tools);
  }

  /** Progress and elicitation need an event stream; everything else is answered as one JSON body. */
  boolean wantsStream(McpSession session, Caller caller, JsonObject params) {
    if (McpTasks.asked(session, params)) {
      return false; // a task is polled: its CreateTaskResult is one JSON body
    }
    if (McpToolCall.progressToken(params) != null) {
      return true;
    }
    return session.canElicit() && nodeTool(params.getString("name")).map(t -> t.tier() >= 3).orElse(false);
  }

  void call(McpSession session, Caller caller, Object requestId, JsonObject params, McpReply reply) {
    String name = params.getString("name");
    Object args = params.getValue("arguments");
    if (args != null && !(args instanceof JsonObject)) {
      throw new McpError(JsonRpc.INVALID_PARAMS, "arguments must be an object");
    }
    if (LIST_NODES.equals(name) && calls.catalog().find(LIST_NODES).isEmpty()) {
      listNodes(caller, requestId, reply);
      return;
    }
    if (calls.catalog().find(name).isEmpty()) {
      throw new McpError(JsonRpc.INVALID_PARAMS, "Unknown tool: " + name + " (tools/list shows the tools)");
    }
    new McpToolCall(vertx, calls, session, caller, requestId, params, reply).start();
  }

  private Optional<ToolSpec> nodeTool(String name) {
    return calls.catalog().find(name).filter(t -> !t.runsOnHub());
  }

  private void listNodes(Caller caller, Object requestId, McpReply reply) {
    if (Tiers.maxToolTier(caller.roles()) < 1) {
      reply.respond(JsonRpc.result(requestId, McpResults.error(403, "list_nodes needs the role 'viewer' or higher", null)));
      return;
    }
    RegistryBus.client(vertx).list()
      .onSuccess(nodes -> reply.respond(JsonRpc.result(requestId, McpResults.ok(nodes, null, null))))
      .onFailure(err -> reply.respond(JsonRpc.result(requestId, McpResults.error(500, err.getMessage(), null))));
  }

  private static JsonObject describe(ToolSpec spec, io.fleetbus.hub.consent.ConfirmPolicy confirm) {
    if (spec.runsOnHub()) {
      // answered by the hub about the whole fleet: no node to name
      return new JsonObject().put("name", spec.name()).put("title", spec.name().replace('_', ' '))
        .put("description", spec.description()).put("inputSchema", spec.inputSchema().copy())
        .put("annotations", spec.annotations().copy().put("openWorldHint", false))
        .put("_meta", new JsonObject().put("io.fleetbus/tier", spec.tier()).put("io.fleetbus/aliases", spec.aliases()));
    }
    JsonObject schema = spec.inputSchema().copy();
    JsonObject props = schema.getJsonObject("properties", new JsonObject()).copy();
    JsonObject withNode = new JsonObject().put(NODE_ARG, new JsonObject().put("type", "string")
      .put("description", "id of the fleet node to run on (list_nodes shows them)"));
    props.forEach(e -> withNode.put(e.getKey(), e.getValue()));
    JsonArray required = new JsonArray().add(NODE_ARG);
    schema.getJsonArray("required", new JsonArray()).forEach(r -> {
      if (!NODE_ARG.equals(r)) {
        required.add(r);
      }
    });
    schema.put("type", "object").put("properties", withNode).put("required", required);
    String who = confirm.forTool(spec.name());
    String tierNote = spec.tier() < 3 ? "" : io.fleetbus.hub.consent.ConfirmPolicy.USER.equals(who)
      ? " Tier 3: you confirm each call (elicitation)." : " Tier 3: a second person (an approver) approves each call.";
    JsonObject meta = new JsonObject().put("io.fleetbus/tier", spec.tier()).put("io.fleetbus/aliases", spec.aliases());
    if (spec.tier() >= 3) {
      meta.put("io.fleetbus/confirm", who).put("io.fleetbus/confirmByLabel", confirm.labelRules());
    }
    return new JsonObject().put("name", spec.name()).put("title", spec.name().replace('_', ' '))
      .put("description", spec.description() + tierNote)
      .put("inputSchema", schema)
      .put("annotations", spec.annotations().copy().put("openWorldHint", false))
      .put("_meta", meta);
  }

  private static JsonObject listNodesTool() {
    return new JsonObject().put("name", LIST_NODES).put("title", "list nodes")
      .put("description", "List the fleet's nodes: id, online, capability tier, labels, platform, last heartbeat and metrics.")
      .put("inputSchema", new JsonObject().put("type", "object").put("properties", new JsonObject())
        .put("additionalProperties", false))
      .put("annotations", new JsonObject().put("readOnlyHint", true).put("destructiveHint", false)
        .put("idempotentHint", true).put("openWorldHint", false));
  }
}
