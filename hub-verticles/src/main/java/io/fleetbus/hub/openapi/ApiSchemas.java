package io.fleetbus.hub.openapi;

import static io.fleetbus.hub.apidoc.JsonSchemas.array;
import static io.fleetbus.hub.apidoc.JsonSchemas.bool;
import static io.fleetbus.hub.apidoc.JsonSchemas.constant;
import static io.fleetbus.hub.apidoc.JsonSchemas.enumOf;
import static io.fleetbus.hub.apidoc.JsonSchemas.epochMs;
import static io.fleetbus.hub.apidoc.JsonSchemas.integer;
import static io.fleetbus.hub.apidoc.JsonSchemas.nullable;
import static io.fleetbus.hub.apidoc.JsonSchemas.number;
import static io.fleetbus.hub.apidoc.JsonSchemas.obj;
import static io.fleetbus.hub.apidoc.JsonSchemas.ref;
import static io.fleetbus.hub.apidoc.JsonSchemas.str;
import static io.fleetbus.hub.apidoc.JsonSchemas.stringMap;

import io.fleetbus.hub.api.RequestBodies;
import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The bodies the hub answers with, as JSON Schema 2020-12 components of the OpenAPI document. They describe what the
 * code really sends (ApiContractTest checks real answers against them with Ajv in strict mode): fields that may be
 * null say so, fields every answer has are required, and further fields are allowed so that an addition is not a
 * break for clients.
 */
final class ApiSchemas {
  private ApiSchemas() {
  }

  static JsonObject all(ToolCatalog catalog) {
    JsonObject s = new JsonObject();
    JsonArray anyTool = new JsonArray();
    for (ToolSpec t : catalog.all()) {
      String name = "Args_" + t.name().replaceAll("[^A-Za-z0-9_]", "_");
      // the tool's own schema as shipped (plain 2020-12), titled; the tier goes in words, no vendor keyword
      s.put(name, t.inputSchema().copy().put("title", t.name())
        .put("description", "tier " + t.tier() + (t.runsOnHub() ? ", answered by the hub" : "") + ": " + t.description()));
      anyTool.add(ref(name));
    }
    s.put(ApiRoutes.TOOL_ARGS, new JsonObject().put("description", "the arguments of the tool named in the path").put("anyOf", anyTool));

    s.put("ErrorBody", obj(new JsonObject().put("code", integer().put("minimum", 400).put("maximum", 599)
        .put("description", "the failure code (400 arguments, 401 credentials, 403 policy, 404 unknown, 408 approval"
          + " expired, 409 conflict, 413 too large, 429 rate limited, 500 tool failed, 503 no eligible node, 504 timeout)"))
      .put("message", str().put("description", "what went wrong, naming the field, rule or node")), "code", "message"));
    s.put("Error", obj(new JsonObject().put("error", ref("ErrorBody")), "error"));

    JsonObject callId = str().put("description", "the call's id");
    s.put("ToolResult", obj(new JsonObject()
      .put("callId", callId)
      .put("nodeId", nullable("string").put("description", "the node that ran it; null for a tool the hub answers"))
      .put("status", enumOf("ok", "error", "cancelled").put("description", "cancelled: stopped by a person (data says"
        + " who); not an error"))
      .put("data", nullable("object").put("description", "the tool's output"))
      .put("error", ref("ErrorBody"))
      .put("durationMs", integer().put("minimum", 0)), "callId", "nodeId", "status", "durationMs")
      .put("description", "a finished call"));
    s.put("PendingCall", obj(new JsonObject()
      .put("callId", callId)
      .put("nodeId", nullable("string").put("description", "the node it will run on; null when a selector picks the"
        + " nodes (fan-out)"))
      .put("status", constant("pending_approval"))
      .put("approvalId", str().put("description", "the approval a person decides: POST /api/v1/approvals/{id}/approve"))
      .put("data", obj(new JsonObject().put("approvalId", str()), "approvalId"))
      .put("durationMs", integer()), "callId", "nodeId", "status", "approvalId")
      .put("description", "a tier-3 call parked until a person approves it (202)"));
    s.put("FanOutEntry", obj(new JsonObject()
      .put("nodeId", str())
      .put("status", enumOf("ok", "error", "cancelled", "not_run"))
      .put("data", nullable("object"))
      .put("error", ref("ErrorBody"))
      .put("durationMs", integer()), "nodeId", "status"));
    s.put("FanOutResult", obj(new JsonObject()
      .put("callId", callId)
      .put("nodeId", new JsonObject().put("type", "null").put("description", "null: the call ran on several nodes"))
      .put("status", enumOf("ok", "error"))
      .put("data", obj(new JsonObject()
        .put("mode", constant("all"))
        .put("results", array(ref("FanOutEntry")))
        .put("summary", obj(new JsonObject().put("nodes", integer()).put("ok", integer()).put("error", integer())
          .put("cancelled", integer()).put("not_run", integer()).put("stoppedByMaxErrors", bool()), "nodes", "ok", "error",
          "not_run")),
        "mode", "results", "summary"))
      .put("durationMs", integer()), "callId", "nodeId", "status", "data")
      .put("description", "mode all: one entry per eligible node and a summary"));
    s.put("CallRecord", obj(new JsonObject()
      .put("callId", callId)
      .put("principal", str().put("description", "who asked"))
      .put("nodeId", nullable("string").put("description", "null for a hub tool and for a fan-out"))
      .put("tool", str())
      .put("tier", integer())
      .put("status", enumOf("pending_approval", "running", "ok", "error", "cancelled"))
      .put("approvalId", nullable("string"))
      .put("createdAt", epochMs())
      .put("finishedAt", nullable("integer").put("description", "epoch ms; null while it runs or waits"))
      .put("data", nullable("object"))
      .put("error", new JsonObject().put("anyOf", new JsonArray().add(ref("ErrorBody")).add(new JsonObject().put("type", "null"))))
      .put("durationMs", integer())
      .put("resolution", str().put("description", "how an outcome the caller could not hear was learned from the node")),
      "callId", "principal", "nodeId", "tool", "status", "createdAt", "finishedAt")
      .put("description", "a call as the hub remembers it; its HTTP status is 200 ok, 202 waiting or running, else the"
        + " failure code of its error"));
    s.put("CancelResult", obj(new JsonObject().put("callId", callId).put("cancelled", bool())
      .put("ran", bool().put("description", "whether it had started on its node")), "callId", "cancelled"));

    s.put("Approval", obj(new JsonObject()
      .put("approvalId", str()).put("callId", str()).put("requester", str())
      .put("nodeId", nullable("string").put("description", "null when a selector picks the nodes"))
      .put("selector", nullable("object"))
      .put("tool", str())
      .put("args", obj(new JsonObject()).put("description", "the call's arguments, secrets masked"))
      .put("argsSha256", str())
      .put("summary", str().put("description", "what the call would do, in words"))
      .put("requestedAt", epochMs()).put("expiresAt", epochMs())
      .put("status", enumOf("pending", "approved", "denied", "expired", "cancelled"))
      .put("decidedBy", nullable("string")).put("reason", nullable("string")).put("decidedAt", nullable("integer"))
      .put("confirm", enumOf("user", "second-person").put("description", "who may confirm it: the requester too (MCP"
        + " elicitation), or only an approver other than the requester"))
      .put("delivery", str().put("description", "in an approve's answer: whether the node journaled the approved call"
        + " (\"journaled on node …\") or not yet (\"not confirmed by node … yet …\"): see docs/reliability.md")),
      "approvalId", "callId", "requester", "tool", "status", "requestedAt", "expiresAt"));
    s.put("ApprovalList", obj(new JsonObject().put("approvals", array(ref("Approval"))), "approvals"));

    s.put("Metrics", obj(new JsonObject().put("cpuPercent", number()).put("memoryMb", integer())
      .put("memoryTotalMb", integer()).put("diskFreeMb", integer()).put("uptimeSeconds", integer())
      .put("loadAverage", number()).put("gpu", obj(new JsonObject()))));
    s.put("Node", obj(new JsonObject()
      .put("nodeId", str()).put("instanceId", nullable("string")).put("online", bool())
      .put("transport", enumOf("cluster", "edge").put("description", "cluster: a member of the cluster; edge: linked"
        + " over TLS to a hub's edge endpoint"))
      .put("platform", nullable("string")).put("capabilityTier", enumOf("unprivileged", "sudo", "root"))
      .put("labels", stringMap()).put("agentVersion", nullable("string")).put("tools", array(str()))
      .put("epoch", integer()).put("firstSeen", epochMs()).put("lastSeen", epochMs())
      .put("lastHeartbeat", nullable("integer").put("description", "epoch ms; null before the first heartbeat"))
      .put("metrics", new JsonObject().put("anyOf", new JsonArray().add(ref("Metrics")).add(new JsonObject().put("type", "null"))))
      .put("confinement", nullable("object").put("description", "what the kernel lets the node's processes do:"
        + " {mode: landlock-strict | landlock-scope | none, abi, required, processGroups, reason, handled: {fs, net,"
        + " scope, execGuard, unixSockets, capabilities}, network: {connect, bind}, limits: {processes, processesBy, cpuSeconds,"
        + " fileSizeMb, ...}, hidesFolders: excluded folders hidden from its confined commands (a mount namespace per"
        + " launcher), files: the file grant}; null until its hello")),
      "nodeId", "online", "capabilityTier", "labels", "lastHeartbeat"));
    s.put("NodeList", obj(new JsonObject().put("nodes", array(ref("Node"))), "nodes"));
    s.put("ConfigApplied", obj(new JsonObject().put("nodeId", str()).put("applied", obj(new JsonObject()))
      .put("effective", obj(new JsonObject())), "nodeId", "applied", "effective"));

    s.put("Tool", obj(new JsonObject()
      .put("name", str()).put("tier", integer().put("minimum", 1).put("maximum", 3)).put("description", str())
      .put("aliases", array(str())).put("platforms", array(str())).put("runsOn", enumOf("node", "hub"))
      .put("annotations", obj(new JsonObject()))
      .put("inputSchema", obj(new JsonObject()).put("description", "the arguments: plain JSON Schema 2020-12"))
      .put("confirm", enumOf("user", "second-person").put("description", "tier 3: who confirms a call where no label"
        + " rule applies"))
      .put("confirmByLabel", array(obj(new JsonObject().put("labels", stringMap())
        .put("confirm", enumOf("user", "second-person")))).put("description", "tier 3: node labels whose calls another"
        + " rule covers (the first match)")),
      "name", "tier", "description", "inputSchema"));
    s.put("ToolList", obj(new JsonObject().put("tools", array(ref("Tool"))), "tools"));

    JsonObject upDown = enumOf("UP", "DOWN");
    s.put("Health", obj(new JsonObject().put("status", upDown).put("outcome", upDown.copy())
      .put("checks", array(obj(new JsonObject().put("id", str()).put("status", upDown.copy())
        .put("data", obj(new JsonObject()).put("description", "details; reason when DOWN")), "id", "status"))),
      "status", "outcome").put("description", "vertx-health-checks: UP, or DOWN naming the failing check"));

    s.put("AuditRecord", obj(new JsonObject()
      .put("seq", integer()).put("at", epochMs()).put("principal", nullable("string")).put("nodeId", nullable("string"))
      .put("tool", nullable("string")).put("tier", integer()).put("args", nullable("object"))
      .put("argsSha256", nullable("string")).put("callId", nullable("string")).put("approvalId", nullable("string"))
      .put("decision", nullable("string")).put("decider", nullable("string")).put("reason", nullable("string"))
      .put("outcome", nullable("string")).put("code", nullable("integer")).put("durationMs", integer())
      .put("prevHash", str()).put("hash", str()), "seq", "at", "prevHash", "hash"));
    s.put("AuditPage", obj(new JsonObject().put("records", array(ref("AuditRecord"))).put("count", integer()),
      "records", "count").put("description", "newest first"));
    s.put("AuditCheck", obj(new JsonObject().put("ok", bool()).put("records", integer()).put("head", str())
      .put("firstBroken", obj(new JsonObject().put("seq", integer()).put("reason", str()), "seq", "reason"))
      .put("callsChecked", integer()).put("unaudited", array(str()).put("description", "calls this hub ended whose"
        + " audit record is missing")), "ok", "records"));

    s.put("EnrollmentRequest", RequestBodies.enrollment());
    s.put("Enrollment", obj(new JsonObject()
      .put("token", str().put("description", "the one-time token, shown only here (FLEETBUS_ENROLLMENT_TOKEN)"))
      .put("tokenId", str()).put("nodeId", nullable("string")).put("expiresAt", epochMs())
      .put("fleetId", str()).put("clusterName", str().put("description", "the cluster the node must join"))
      .put("edgeEndpoint", str().put("description", "host:port of this hub's edge endpoint as edge nodes reach it (only"
        + " where it has one; edge.advertise, else a machine address, never 0.0.0.0): a node outside the cluster network"
        + " links there (transport: edge)"))
      .put("edgeEndpoints", array(str()).put("description", "every live hub's edge endpoint, this hub's first: what"
        + " install-node.sh --edge --hub takes, joined by commas"))
      .put("edgeCertSha256", str().put("description", "SHA-256 of the hubs' edge certificate, which an edge node pins")),
      "token", "tokenId", "nodeId", "expiresAt", "fleetId", "clusterName"));
    s.put("Rekeyed", obj(new JsonObject().put("nodeId", str()).put("rotatedAt", epochMs())
      .put("previousValidUntil", epochMs()), "nodeId", "rotatedAt", "previousValidUntil"));
    s.put("Revoked", obj(new JsonObject().put("nodeId", str()).put("revoked", constant(true)), "nodeId", "revoked"));
    s.put("ProtectedResource", obj(new JsonObject().put("resource", str())
      .put("authorization_servers", array(str()).put("description", "the issuers the hub trusts (auth.issuers)"))
      .put("bearer_methods_supported", array(str())).put("resource_name", str()), "resource", "authorization_servers"));
    s.put("Whoami", obj(new JsonObject().put("subject", str()).put("roles", array(str())), "subject", "roles"));
    s.put("LoginOptions", obj(new JsonObject().put("issuers", array(obj(new JsonObject().put("id", integer())
      .put("name", str()), "id", "name")).put("description", "the issuers the dashboard signs people in at"
      + " (auth.issuers[].dashboard)")), "issuers"));
    s.put("LoginSession", obj(new JsonObject().put("token", str().put("description", "the issuer's access token, for"
      + " Authorization: Bearer")).put("subject", str()).put("roles", array(str())), "token", "subject", "roles"));
    s.put("RevocationRequest", RequestBodies.revocation());
    s.put("Revocation", obj(new JsonObject().put("kind", enumOf("token", "subject")).put("tokenId", str())
      .put("subject", str()).put("revokedAt", epochMs()).put("keepUntil", epochMs()).put("by", nullable("string")),
      "kind", "revokedAt", "keepUntil"));
    s.put("RevocationList", obj(new JsonObject().put("revocations", array(ref("Revocation"))).put("count", integer()),
      "revocations", "count"));
    s.put("Decision", RequestBodies.decision());
    s.put("CallByTarget", RequestBodies.callByTarget());
    s.put("ConfigUpdate", RequestBodies.configUpdate());

    s.put("Cluster", obj(new JsonObject().put("cluster", str()).put("fleetId", str())
      .put("members", array(obj(new JsonObject().put("member", str()).put("address", str())
        .put("role", enumOf("hub", "node", "unknown")).put("lite", bool()).put("joinedSecondsAgo", integer())
        .put("self", bool()).put("intruder", bool()).put("fleetId", str()).put("nodes", array(str())),
        "member", "role", "intruder"))).put("intruders", integer()), "cluster", "members", "intruders"));
    s.put("Stages", obj(new JsonObject().put("enabled", bool()).put("stages", array(obj(new JsonObject()
      .put("stage", str()).put("label", str()).put("samples", integer()).put("p50Ms", number()).put("p99Ms", number())))),
      "enabled", "stages"));

    s.put("JsonRpcMessage", obj(new JsonObject().put("jsonrpc", constant("2.0"))
      .put("id", new JsonObject().put("anyOf", new JsonArray().add(str()).add(integer()).add(new JsonObject().put("type", "null"))))
      .put("method", str()).put("params", obj(new JsonObject())).put("result", obj(new JsonObject()))
      .put("error", obj(new JsonObject().put("code", integer()).put("message", str()).put("data", new JsonObject()),
        "code", "message")), "jsonrpc").put("description", "one JSON-RPC 2.0 message (MCP)"));
    s.put("SockJsInfo", obj(new JsonObject().put("websocket", bool()).put("cookie_needed", bool())
      .put("origins", array(str())).put("entropy", integer()), "websocket", "cookie_needed", "origins", "entropy"));
    return s;
  }
}
