package io.fleetbus.hub.openapi;

import static io.fleetbus.hub.openapi.ApiRoutes.bool;
import static io.fleetbus.hub.openapi.ApiRoutes.integer;
import static io.fleetbus.hub.openapi.ApiRoutes.nullable;
import static io.fleetbus.hub.openapi.ApiRoutes.str;
import static io.fleetbus.hub.openapi.RouteDoc.ref;

import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Builds the OpenAPI 3.1 document: the routes of {@link ApiRoutes}, tool arguments from the catalogue. */
public final class OpenApiDocument {
  private static final Pattern PARAM = Pattern.compile("\\{([^}]+)}");

  private OpenApiDocument() {
  }

  public static JsonObject build(ToolCatalog catalog) {
    JsonObject paths = new JsonObject();
    for (RouteDoc r : ApiRoutes.all()) {
      JsonObject item = paths.getJsonObject(r.path());
      if (item == null) {
        item = new JsonObject();
        paths.put(r.path(), item);
      }
      item.put(r.method(), operation(r, catalog));
    }
    return new JsonObject()
      .put("openapi", "3.1.0")
      .put("info", new JsonObject().put("title", "fleetbus hub").put("version", "0.1.0")
        .put("description", "Call tools on a fleet of machines. Errors: HTTP status = failure code, body {error:{code,message}}."))
      .put("paths", paths)
      .put("components", new JsonObject()
        .put("securitySchemes", new JsonObject().put("bearer", new JsonObject().put("type", "http")
          .put("scheme", "bearer").put("bearerFormat", "JWT")))
        .put("schemas", schemas(catalog)));
  }

  private static JsonObject operation(RouteDoc r, ToolCatalog catalog) {
    JsonObject op = new JsonObject().put("summary", r.summary())
      .put("operationId", r.method() + r.path().replaceAll("[^A-Za-z0-9]+", "_"));
    JsonArray params = new JsonArray();
    Matcher m = PARAM.matcher(r.path());
    while (m.find()) {
      JsonObject schema = str();
      if ("tool".equals(m.group(1))) {
        JsonArray names = new JsonArray();
        catalog.all().stream().filter(t -> !t.runsOnHub()).forEach(t -> {
          names.add(t.name());
          t.aliases().forEach(names::add);
        });
        schema.put("enum", names);
      }
      params.add(new JsonObject().put("name", m.group(1)).put("in", "path").put("required", true).put("schema", schema));
    }
    if (!params.isEmpty()) {
      op.put("parameters", params);
    }
    if (r.request() != null) {
      op.put("requestBody", new JsonObject().put("content", json(r.request())));
    }
    JsonObject ok = new JsonObject().put("description", r.status() == 101 ? "switching to WebSocket" : "success");
    if (r.response() != null) {
      ok.put("content", json(r.response()));
    }
    JsonObject responses = new JsonObject().put(String.valueOf(r.status()), ok);
    if (r.path().endsWith("/tools/{tool}")) {
      responses.put("202", new JsonObject().put("description", "tier 3: waiting for a person's approval")
        .put("content", json(ref("ToolResult"))));
    }
    responses.put("default", new JsonObject().put("description", "a failure: status = failure code")
      .put("content", json(ref("Error"))));
    op.put("responses", responses);
    if (r.secured()) {
      op.put("security", new JsonArray().add(new JsonObject().put("bearer", new JsonArray())));
    }
    return op;
  }

  private static JsonObject json(JsonObject schema) {
    return new JsonObject().put("application/json", new JsonObject().put("schema", schema));
  }

  private static JsonObject schemas(ToolCatalog catalog) {
    JsonObject schemas = new JsonObject();
    JsonArray anyTool = new JsonArray();
    for (ToolSpec t : catalog.all()) {
      if (t.runsOnHub()) {
        continue;
      }
      String name = "Args_" + t.name().replaceAll("[^A-Za-z0-9_]", "_");
      schemas.put(name, t.inputSchema().copy().put("title", t.name()).put("description", t.description())
        .put("x-fleetbus-tier", t.tier()));
      anyTool.add(ref(name));
    }
    schemas.put(ApiRoutes.TOOL_ARGS, new JsonObject().put("description", "the arguments of the tool named in the path")
      .put("anyOf", anyTool));
    schemas.put("Error", obj(new JsonObject().put("error", obj(new JsonObject().put("code", integer()).put("message", str())))));
    JsonObject errorField = obj(new JsonObject().put("code", integer()).put("message", str()));
    schemas.put("ToolResult", obj(new JsonObject().put("callId", str()).put("nodeId", str())
      .put("status", new JsonObject().put("enum", new JsonArray().add("ok").add("error").add("pending_approval")))
      .put("data", new JsonObject().put("type", "object")).put("error", errorField).put("approvalId", str())
      .put("durationMs", integer())));
    schemas.put("CallRecord", obj(new JsonObject().put("callId", str()).put("principal", str()).put("nodeId", str())
      .put("tool", str()).put("tier", integer()).put("status", str()).put("approvalId", nullable("string"))
      .put("createdAt", integer()).put("finishedAt", nullable("integer")).put("data", new JsonObject())
      .put("error", new JsonObject()).put("durationMs", integer())));
    schemas.put("Approval", obj(new JsonObject().put("approvalId", str()).put("callId", str()).put("requester", str())
      .put("nodeId", str()).put("tool", str()).put("args", new JsonObject().put("type", "object")).put("summary", str())
      .put("requestedAt", integer()).put("expiresAt", integer()).put("status", str()).put("decidedBy", nullable("string"))
      .put("reason", nullable("string")).put("decidedAt", nullable("integer"))));
    schemas.put("Node", obj(new JsonObject().put("nodeId", str()).put("instanceId", str()).put("online", bool()).put("capabilityTier", str())
      .put("platform", str()).put("labels", new JsonObject().put("type", "object")).put("metrics", new JsonObject())
      .put("confinement", obj(new JsonObject().put("mode", new JsonObject().put("enum", new JsonArray().add("landlock-strict")
        .add("landlock-scope").add("none"))).put("abi", integer()).put("required", bool()).put("processGroups", bool())
        .put("reason", str())))));
    schemas.put("Tool", obj(new JsonObject().put("name", str()).put("tier", integer()).put("description", str())
      .put("aliases", new JsonObject().put("type", "array").put("items", str()))
      .put("inputSchema", new JsonObject().put("type", "object")).put("annotations", new JsonObject().put("type", "object"))));
    return schemas;
  }

  private static JsonObject obj(JsonObject properties) {
    return new JsonObject().put("type", "object").put("properties", properties);
  }
}
