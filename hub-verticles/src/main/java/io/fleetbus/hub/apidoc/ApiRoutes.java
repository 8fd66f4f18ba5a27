package io.fleetbus.hub.apidoc;

import static io.fleetbus.hub.apidoc.JsonSchemas.enumOf;
import static io.fleetbus.hub.apidoc.JsonSchemas.integer;
import static io.fleetbus.hub.apidoc.JsonSchemas.ref;
import static io.fleetbus.hub.apidoc.JsonSchemas.str;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every HTTP route the hub serves, with the answers it really gives: the one source of both the router and the OpenAPI
 * document. A frontend mounts a route only through {@link #bind} with the route's id, so method and path come from
 * here and a route cannot exist undocumented (HubPackageRulesTest refuses any other way of adding a method route);
 * ApiVerticle refuses to start when a route described here was not bound, so none is documented without existing.
 * ApiContractTest holds the answers to real responses.
 */
public final class ApiRoutes {
  private ApiRoutes() {
  }

  /** Where the SockJS event-bus bridge serves its transports. */
  public static final String SOCKJS_PATH = "/eventbus";
  /** The REST routes' router is mounted here: {@link #bind(Router, String, String)} takes their paths below it. */
  public static final String REST = "/api/v1";
  /** The component that describes a tool's arguments by the tool named in the path. */
  public static final String TOOL_ARGS = "ToolArguments";

  static final String EVENT_STREAM = "text/event-stream";

  /** The groups of routes, in the order the document lists them. */
  public static final Map<String, String> TAGS = Map.of(
    "ops", "health, readiness, metrics, the dashboard and this document",
    "nodes", "the fleet's nodes and their credentials",
    "users", "user tokens: who holds one, revocation",
    "calls", "tools and calls: by node, by hub, by target (fan-out), their records",
    "approvals", "the human step for tier-3 calls",
    "audit", "the hash-chained audit trail",
    "frontends", "WebSocket API, MCP (Streamable HTTP) and the SockJS event-bus bridge");

  /** The routes, freshly built (the document takes their JSON as it is). */
  public static List<RouteDoc> all() {
    JsonObject wait = integer().put("minimum", 0).put("maximum", 600);
    JsonObject idempotencyKey = str().put("pattern", "^[\\x21-\\x7e]{1,255}$");
    String idempotencyText = "the same caller's retry with the same key within 24 h gets the first call's answer"
      + " (header Idempotent-Replayed: true) and never runs it again";
    String waitText = "seconds to wait for the outcome of a call that waits for approval or runs (the answer is then"
      + " the call's record)";
    // a finished call, or its record when ?wait=S was given
    JsonObject finished = anyOf(ref("ToolResult"), ref("CallRecord"));
    JsonObject parked = anyOf(ref("PendingCall"), ref("CallRecord"));
    JsonObject refused = anyOf(ref("Error"), ref("CallRecord"));
    JsonObject rpc = ref("JsonRpcMessage");
    return java.util.stream.Stream.concat(IdentityRoutes.all().stream(), java.util.stream.Stream.of(
      new RouteDoc("health", "get", "/health", "ops", "Liveness: the hub process answers").open().neverRefuses()
        .answers("200", "alive", ref("Health")),
      new RouteDoc("ready", "get", "/ready", "ops", "Readiness: cluster joined, SQLite open, hub verticles deployed")
        .open().neverRefuses()
        .answers("200", "ready", ref("Health"))
        .answers("503", "not ready yet: the failing check says why", ref("Health")),
      new RouteDoc("metrics", "get", "/metrics", "ops",
          "Prometheus metrics (text format): calls, latency, approvals, nodes,"
        + " heartbeats, event bus, JVM").open().neverRefuses()
        .answers("200", "the metrics", "text/plain", str()),
      new RouteDoc("dashboard", "get", "/", "ops",
          "The operator dashboard (HTML; its assets are under /ui/)").open().neverRefuses()
        .answers("200", "the dashboard's page", "text/html", str()),
      new RouteDoc("openApiDocument", "get", "/api/v1/openapi.json", "ops",
          "This document; servers names the address it was asked"
        + " at").open().neverRefuses()
        .answers("200", "the OpenAPI 3.1 document", new JsonObject().put("type", "object")),

      new RouteDoc("listNodes", "get", "/api/v1/nodes", "nodes",
          "Nodes: online state, capability tier, labels, platform, last"
        + " heartbeat and metrics")
        .answers("200", "the nodes this hub knows", ref("NodeList")),
      new RouteDoc("getNode", "get", "/api/v1/nodes/{nodeId}", "nodes", "One node")
        .answers("200", "the node", ref("Node")),
      new RouteDoc("updateNodeConfig", "post", "/api/v1/nodes/{nodeId}/config", "nodes",
          "admin: config_update applied by the running node,"
        + " persisted there and recorded in its lifecycle; the node names any setting it cannot change")
        .body(ref("ConfigUpdate"))
        .answers("200", "applied: what changed and the settings now in force", ref("ConfigApplied")),
      new RouteDoc("rekeyNode", "post", "/api/v1/nodes/{nodeId}/rekey", "nodes",
          "admin: rotate the node's credential (sent to it"
        + " sealed under the old one; the old one verifies for a short grace)")
        .answers("200", "rotated", ref("Rekeyed")),
      new RouteDoc("revokeNode", "delete", "/api/v1/nodes/{nodeId}", "nodes",
          "admin: revoke the node (heartbeats dropped, calls 404,"
        + " it must enroll again)")
        .answers("200", "revoked", ref("Revoked")),
      new RouteDoc("createEnrollment", "post", "/api/v1/enrollments", "nodes",
          "admin: a one-time enrollment token for a node, shown once")
        .body(ref("EnrollmentRequest"))
        .answers("201", "the token (shown only in this answer)", ref("Enrollment")),
      new RouteDoc("revokeTokens", "post", "/api/v1/revocations", "users",
          "admin: revoke one user token by its id (jti), or every"
        + " token of a subject issued until now; refused by every hub of the fleet within seconds, open WebSocket and"
        + " MCP sessions it covers closed")
        .body(ref("RevocationRequest"))
        .answers("201", "in force", ref("Revocation")),
      new RouteDoc("listRevocations", "get", "/api/v1/revocations", "users",
          "admin: the revocations in force, newest first (each kept"
        + " until the tokens it revokes would have expired anyway)")
        .answers("200", "the revocations", ref("RevocationList")),
      new RouteDoc("cluster", "get", "/api/v1/cluster", "nodes",
          "admin: the cluster's members with role (hub of this fleet, a"
        + " proven node's member, unknown) and fleet; members unknown 10 s after joining are intruders")
        .answers("200", "the members", ref("Cluster")),

      new RouteDoc("listTools", "get", "/api/v1/tools", "calls",
          "The tools the caller's roles may use, each with its arguments as"
        + " plain JSON Schema 2020-12")
        .answers("200", "the tools", ref("ToolList")),
      new RouteDoc("callNodeTool", "post", "/api/v1/nodes/{nodeId}/tools/{tool}", "calls",
          "Call a tool on a node; the body is the"
        + " tool's arguments. Tier 3 answers 202 with an approvalId until a person decides")
        .body(ref(TOOL_ARGS)).query("wait", wait, waitText)
        .header("Idempotency-Key", idempotencyKey, idempotencyText)
        .answers("200", "the call's result (its record with ?wait)", finished)
        .answers("202", "parked until a person approves it (or, with ?wait, still waiting or running)", parked)
        .answers("4XX", "refused (naming the field, rule or node), or with ?wait the record of a call that failed so",
          refused)
        .answers("5XX", "the tool failed, no eligible node, or timeout (with ?wait the call's record)", refused),
      new RouteDoc("callHubTool", "post", "/api/v1/tools/{tool}", "calls",
          "Call a tool the hub answers itself (list_nodes,"
        + " search_tools, get_site_logs …); the body is the tool's arguments")
        .body(ref(TOOL_ARGS)).header("Idempotency-Key", idempotencyKey, idempotencyText)
        .answers("200", "the result; nodeId is null", ref("ToolResult")),
      new RouteDoc("callByTarget", "post", "/api/v1/calls", "calls",
          "Call a tool by target: {tool, args, node}, or a selector"
        + " {labels, platform, minCapabilityTier, mode, maxConcurrency, maxErrors, nodes}: mode one runs on the"
        + " least-loaded eligible node, mode all on every eligible node")
        .body(ref("CallByTarget")).query("wait", wait, waitText)
        .header("Idempotency-Key", idempotencyKey, idempotencyText)
        .answers("200", "the result: one node's, or with mode all one entry per node and a summary (nodeId null)",
          anyOf(ref("ToolResult"), ref("FanOutResult"), ref("CallRecord")))
        .answers("202", "parked until a person approves it (one approval names every target node)", parked)
        .answers("4XX", "refused, naming the field or why each node was excluded", refused)
        .answers("5XX", "the tool failed, no eligible node (503 says why each was excluded), or timeout", refused),
      new RouteDoc("getCall", "get", "/api/v1/calls/{callId}", "calls",
          "A call's status and result, from any hub; an outcome the"
        + " caller could not hear is asked of the node")
        .query("wait", wait, "seconds to wait until it has finished")
        .answers("200", "finished ok", ref("CallRecord"))
        .answers("202", "waiting for approval or running", ref("CallRecord"))
        .answers("4XX", "no such call you may see (Error), or the record of a call refused or denied", refused)
        .answers("5XX", "the record of a call that failed, timed out or whose node left", refused),
      new RouteDoc("cancelCall", "post", "/api/v1/calls/{callId}/cancel", "calls",
          "Withdraw a pending call or stop a running one on"
        + " its node (process tree killed)")
        .answers("200", "cancelled", ref("CancelResult")),

      new RouteDoc("listApprovals", "get", "/api/v1/approvals", "approvals", "Approvals the caller may see")
        .query("status", enumOf("pending", "approved", "denied", "expired", "cancelled"), "only those in this state")
        .answers("200", "the approvals, secrets masked", ref("ApprovalList")),
      new RouteDoc("approve", "post", "/api/v1/approvals/{id}/approve", "approvals",
          "Approve (role approver or admin; never"
        + " one's own request)")
        .body(ref("Decision"))
        .answers("200", "decided", ref("Approval")),
      new RouteDoc("deny", "post", "/api/v1/approvals/{id}/deny", "approvals", "Deny (role approver or admin)")
        .body(ref("Decision"))
        .answers("200", "decided", ref("Approval")),

      new RouteDoc("queryAudit", "get", "/api/v1/audit", "audit",
          "The hash-chained audit trail (admins and approvers: all of it,"
        + " others their own entries)")
        .query("node", str(), "only this node").query("tool", str(), "only this tool")
        .query("principal", str(), "only this caller")
        .query("outcome", str(), "only this outcome (ok, error, refused …)")
        .query("since", str(), "epoch milliseconds or an ISO-8601 instant")
        .query("limit", integer().put("minimum", 1).put("maximum", 1000), "at most this many (default 100)")
        .answers("200", "the records, newest first", ref("AuditPage")),
      new RouteDoc("verifyAudit", "get", "/api/v1/audit/verify", "audit",
          "Checks the audit chain and that every call this hub ended"
        + " is audited (admin or approver)")
        .answers("200", "ok, or the first broken record and the unaudited calls", ref("AuditCheck")),

      new RouteDoc("callStages", "get", "/api/v1/debug/stages", "ops",
          "admin: where HTTP tool calls spend their time, p50/p99 per"
        + " stage (when the hub runs with -Dfleetbus.stages=true, as the benchmark does)")
        .answers("200", "the stages", ref("Stages")),
      new RouteDoc("resetCallStages", "delete", "/api/v1/debug/stages", "ops", "admin: forget the call-stage samples")
        .answers("204", "forgotten", null, null),

      new RouteDoc("webSocket", "get", "/api/v1/ws", "frontends",
          "WebSocket API (call, cancel, subscribe; see docs/api.md): the"
        + " JWT comes in the Authorization header or a first {type: auth, token} message").open()
        .answers("101", "switching to WebSocket", null, null),
      new RouteDoc("mcpResourceMetadata", "get", "/.well-known/oauth-protected-resource/mcp", "frontends",
          "OAuth protected-resource metadata"
        + " (RFC 9728) of the MCP endpoint: its resource URI and the issuers trusted (auth.issuers); a 401 from /mcp"
        + " names it in WWW-Authenticate").open().neverRefuses()
        .answers("200", "the metadata", ref("ProtectedResource")),
      new RouteDoc("hubResourceMetadata", "get", "/.well-known/oauth-protected-resource", "frontends",
          "OAuth protected-resource metadata"
        + " (RFC 9728) of the hub").open().neverRefuses()
        .answers("200", "the metadata", ref("ProtectedResource")),
      new RouteDoc("mcpMessage", "post", "/mcp", "frontends", "MCP Streamable HTTP: one JSON-RPC message")
        .body(rpc)
        .answers("200", "the answer as JSON, or as an event stream (progress, elicitation) when the client accepts one",
          rpc).alsoAs("200", EVENT_STREAM, str())
        .answers("202", "a notification or response accepted", null, null)
        .answers("401", "no or bad token (a JSON-RPC error)", rpc)
        .answers("4XX", "not JSON, not JSON-RPC, unknown session (JSON-RPC error), or a refused origin",
          anyOf(rpc, ref("Error"))),
      new RouteDoc("mcpStream", "get", "/mcp", "frontends", "MCP Streamable HTTP: the session's event stream")
        .header("Mcp-Session-Id", str(), "the session from initialize")
        .answers("200", "the session's events", EVENT_STREAM, str())
        .answers("401", "no or bad token (a JSON-RPC error)", rpc)
        .answers("4XX", "no such session, or no Accept: text/event-stream (JSON-RPC error)", anyOf(rpc, ref("Error"))),
      new RouteDoc("mcpEndSession", "delete", "/mcp", "frontends", "MCP Streamable HTTP: end the session")
        .header("Mcp-Session-Id", str(), "the session from initialize")
        .answers("204", "ended", null, null)
        .answers("401", "no or bad token (a JSON-RPC error)", rpc)
        .answers("4XX", "no such session (JSON-RPC error)", anyOf(rpc, ref("Error"))),
      new RouteDoc("sockJsInfo", "get", SOCKJS_PATH + "/info", "frontends",
          "SockJS event-bus bridge: the transport's info"
        + " (clients such as @vertx/eventbus-bridge-client.js start here, then use the SockJS transports under "
        + SOCKJS_PATH + "/…). The bridge is deny-by-default; a frame carries the JWT in headers.token").open()
        .answers("200", "SockJS info", ref("SockJsInfo"))
        .answers("403", "origin not allowed", ref("Error")),
      new RouteDoc("sockJsWebSocket", "get", SOCKJS_PATH + "/websocket", "frontends",
          "SockJS event-bus bridge over a raw WebSocket"
        + " (frames are the bridge's JSON messages)").open()
        .answers("101", "switching to WebSocket", null, null)
        .answers("403", "origin not allowed", ref("Error")))).toList();
  }

  /** The SockJS paths described above: SockJS serves them (and more transports) itself, not as router routes. */
  public static final List<String> SOCKJS_DESCRIBED = List.of("GET " + SOCKJS_PATH + "/info",
    "GET " + SOCKJS_PATH + "/websocket");
  private static final List<String> SOCKJS_IDS = List.of("sockJsInfo", "sockJsWebSocket");
  private static final Map<String, RouteDoc> BY_ID = all().stream()
    .collect(Collectors.toUnmodifiableMap(r -> r.id, Function.identity()));

  /** Mounts the route {@code id} describes on the root router: its method and path as described. */
  public static Route bind(Router root, String id) {
    return bind(root, "", id);
  }

  /** Mounts the route {@code id} describes on a router mounted at {@code mountedAt} (e.g. {@link #REST}). */
  public static Route bind(Router router, String mountedAt, String id) {
    RouteDoc doc = BY_ID.get(id);
    if (doc == null || !doc.path.startsWith(mountedAt + "/")) {
      throw new IllegalArgumentException("no route '" + id + "' is described under '" + mountedAt + "/': describe it"
        + " in ApiRoutes first");
    }
    String path = doc.path.substring(mountedAt.length()).replaceAll("\\{([^}]+)}", ":$1");
    return router.route(HttpMethod.valueOf(doc.method.toUpperCase(Locale.ROOT)), path);
  }

  /**
   * The described routes {@code root} does not serve ("METHOD /path"; SockJS's two are served by SockJS itself): the
   * hub refuses to start unless this is empty, so no route is documented without existing.
   */
  public static List<String> unserved(Router root) {
    Set<String> served = new TreeSet<>();
    walk(root, "", served);
    return BY_ID.values().stream().filter(r -> !SOCKJS_IDS.contains(r.id))
      .map(r -> r.method.toUpperCase(Locale.ROOT) + " " + r.path).filter(r -> !served.contains(r)).sorted().toList();
  }

  private static void walk(Router router, String prefix, Set<String> out) {
    for (Route r : router.getRoutes()) {
      String path = r.getPath();
      if (r.getSubRouter() != null && path != null) {
        walk(r.getSubRouter(), prefix + (path.endsWith("/") ? path.substring(0, path.length() - 1) : path), out);
      } else if (path != null && r.methods() != null) {
        String described = (prefix + path).replaceAll(":([A-Za-z0-9_]+)", "{$1}");
        r.methods().forEach(m -> out.add(m.name() + " " + described));
      }
    }
  }

  static JsonObject anyOf(JsonObject... schemas) {
    return new JsonObject().put("anyOf", new JsonArray(List.of((Object[]) schemas)));
  }
}
