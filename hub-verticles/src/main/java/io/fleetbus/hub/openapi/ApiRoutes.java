package io.fleetbus.hub.openapi;

import static io.fleetbus.hub.openapi.RouteDoc.ref;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** Every HTTP route the hub serves, described once (the OpenAPI test holds this list to the real router). */
final class ApiRoutes {
  private ApiRoutes() {
  }

  static final String TOOL_ARGS = "ToolArguments";

  static List<RouteDoc> all() {
    JsonObject any = new JsonObject().put("type", "object");
    JsonObject reason = new JsonObject().put("type", "object")
      .put("properties", new JsonObject().put("reason", new JsonObject().put("type", "string")));
    return List.of(
      new RouteDoc("get", "/health", "Liveness: answers without auth", null, 200, any, false),
      new RouteDoc("get", "/ready", "Readiness: cluster joined, SQLite open, hub verticles deployed (503 with the failing"
        + " check until then)", null, 200, any, false),
      new RouteDoc("get", "/metrics", "Prometheus metrics (text format): calls, latency, approvals, nodes, heartbeats,"
        + " event bus, JVM", null, 200, null, false),
      new RouteDoc("get", "/", "The operator dashboard (HTML; its assets are under /ui/)", null, 200, null, false),
      new RouteDoc("get", "/api/v1/openapi.json", "This document", null, 200, any, false),
      new RouteDoc("get", "/api/v1/nodes", "Nodes: online state, capability tier, labels, platform, last metrics", null, 200,
        list("nodes", ref("Node")), true),
      new RouteDoc("get", "/api/v1/nodes/{nodeId}", "One node", null, 200, ref("Node"), true),
      new RouteDoc("get", "/api/v1/tools", "The tools the caller's roles may use", null, 200, list("tools", ref("Tool")), true),
      new RouteDoc("post", "/api/v1/nodes/{nodeId}/tools/{tool}", "Call a tool on a node; the body is the tool's arguments"
        + " (tier 3 answers 202 with an approvalId; ?wait=S waits for the outcome)", ref(TOOL_ARGS), 200, ref("ToolResult"), true),
      new RouteDoc("post", "/api/v1/tools/{tool}", "Call a hub-side tool (list_nodes, search_tools, get_site_logs …);"
        + " the body is the tool's arguments", ref(TOOL_ARGS), 200, ref("ToolResult"), true),
      new RouteDoc("post", "/api/v1/calls", "Call a tool by target: {tool, args, node} or {tool, args, labels, platform,"
        + " minCapabilityTier, mode: one|all, maxConcurrency, maxErrors}; mode all answers one entry per node and a summary",
        new JsonObject().put("type", "object").put("required", new JsonArray().add("tool")).put("properties", new JsonObject()
          .put("tool", str()).put("args", any).put("node", str()).put("labels", any).put("platform", str())
          .put("minCapabilityTier", str()).put("mode", new JsonObject().put("enum", new JsonArray().add("one").add("all")))
          .put("maxConcurrency", integer()).put("maxErrors", integer())), 200, ref("ToolResult"), true),
      new RouteDoc("post", "/api/v1/nodes/{nodeId}/config", "config_update (admin): heartbeatIntervalMs, allowlist {add, remove},"
        + " logPaths, labels — applied by the running node, persisted there, recorded in its lifecycle", any, 200, any, true),
      new RouteDoc("get", "/api/v1/calls/{callId}", "A call's status and result (?wait=S waits until it finished)", null, 200,
        ref("CallRecord"), true),
      new RouteDoc("post", "/api/v1/calls/{callId}/cancel", "Withdraw a pending call or stop a running one on its node",
        null, 200, new JsonObject().put("type", "object").put("properties", new JsonObject()
          .put("callId", str()).put("cancelled", bool()).put("ran", bool())), true),
      new RouteDoc("get", "/api/v1/approvals", "Approvals, optionally ?status=pending|approved|denied|expired|cancelled",
        null, 200, list("approvals", ref("Approval")), true),
      new RouteDoc("post", "/api/v1/approvals/{id}/approve", "Approve (role approver or admin)", reason, 200, ref("Approval"), true),
      new RouteDoc("post", "/api/v1/approvals/{id}/deny", "Deny (role approver or admin)", reason, 200, ref("Approval"), true),
      new RouteDoc("post", "/api/v1/enrollments", "admin: a one-time enrollment token for a node, shown once (body {nodeId?,"
        + " ttlMinutes?})", any, 201, any, true),
      new RouteDoc("post", "/api/v1/nodes/{nodeId}/rekey", "admin: rotate the node's credential (sent to it sealed under the"
        + " old one; the old one verifies for a short grace)", null, 200, any, true),
      new RouteDoc("delete", "/api/v1/nodes/{nodeId}", "admin: revoke the node (heartbeats dropped, calls 404, it must enroll"
        + " again)", null, 200, any, true),
      new RouteDoc("get", "/api/v1/audit", "The hash-chained audit trail, filtered by node, tool, principal, outcome, since,"
        + " limit", null, 200, any, true),
      new RouteDoc("get", "/api/v1/audit/verify", "Checks the audit chain; names the first broken record", null, 200, any, true),
      new RouteDoc("get", "/api/v1/cluster", "admin: the cluster's members with role (hub of this fleet, a proven node's"
        + " member, unknown) and fleet; members unknown 10 s after joining are intruders", null, 200, any, true),
      new RouteDoc("get", "/api/v1/debug/stages", "admin: where HTTP tool calls spend their time, p50/p99 per stage (when"
        + " the hub runs with -Dfleetbus.stages=true, as the benchmark does)", null, 200, any, true),
      new RouteDoc("delete", "/api/v1/debug/stages", "admin: forget the call-stage samples", null, 204, null, true),
      new RouteDoc("get", "/api/v1/ws", "WebSocket upgrade: call, cancel, subscribe (see README); the JWT comes in the"
        + " Authorization header or a first {type: auth, token} message", null, 101, null, false),
      new RouteDoc("post", "/mcp", "MCP Streamable HTTP: one JSON-RPC message; answered as JSON or text/event-stream",
        any, 200, any, true),
      new RouteDoc("get", "/mcp", "MCP Streamable HTTP: the session's event stream", null, 200, null, true),
      new RouteDoc("delete", "/mcp", "MCP Streamable HTTP: end the session", null, 204, null, true));
  }

  static JsonObject list(String field, JsonObject items) {
    return new JsonObject().put("type", "object").put("properties", new JsonObject()
      .put(field, new JsonObject().put("type", "array").put("items", items)));
  }

  static JsonObject str() {
    return new JsonObject().put("type", "string");
  }

  static JsonObject bool() {
    return new JsonObject().put("type", "boolean");
  }

  static JsonObject integer() {
    return new JsonObject().put("type", "integer");
  }

  static JsonObject nullable(String type) {
    return new JsonObject().put("type", new JsonArray().add(type).add("null"));
  }
}
