package io.fleetbus.hub.openapi;

import static io.fleetbus.hub.apidoc.JsonSchemas.ref;
import static io.fleetbus.hub.apidoc.JsonSchemas.str;

import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.hub.apidoc.RouteDoc;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Builds the OpenAPI 3.1 document: the routes of {@link ApiRoutes}, the bodies of {@link ApiSchemas}, tools from the catalogue. */
public final class OpenApiDocument {
  private static final Pattern PARAM = Pattern.compile("\\{([^}]+)}");

  private OpenApiDocument() {
  }

  /** The document without {@code servers} (the endpoint adds the address it is asked at). */
  public static JsonObject build(ToolCatalog catalog) {
    JsonObject paths = new JsonObject();
    JsonArray tags = new JsonArray();
    for (RouteDoc r : ApiRoutes.all()) {
      JsonObject item = paths.getJsonObject(r.path);
      if (item == null) {
        item = new JsonObject();
        paths.put(r.path, item);
      }
      item.put(r.method, operation(r, catalog));
      if (!tags.stream().anyMatch(t -> r.tag.equals(((JsonObject) t).getString("name")))) {
        tags.add(new JsonObject().put("name", r.tag).put("description", ApiRoutes.TAGS.get(r.tag)));
      }
    }
    return new JsonObject()
      .put("openapi", "3.1.0")
      .put("info", new JsonObject().put("title", "fleetbus hub").put("version", "0.1.0")
        .put("description", "Call tools on a fleet of machines. Errors: HTTP status = failure code, body"
          + " {error:{code,message}} naming the field, rule or node. Tier-3 calls answer 202 until a person approves."))
      .put("jsonSchemaDialect", "https://json-schema.org/draft/2020-12/schema")
      .put("tags", tags)
      .put("security", new JsonArray().add(new JsonObject().put("bearer", new JsonArray())))
      .put("paths", paths)
      .put("components", new JsonObject()
        .put("securitySchemes", new JsonObject().put("bearer", new JsonObject().put("type", "http")
          .put("scheme", "bearer").put("bearerFormat", "JWT")
          .put("description", "a user JWT signed by the hub (scripts/run.sh prints a dev admin token)")))
        .put("schemas", ApiSchemas.all(catalog)));
  }

  /** The document as served at {@code origin} ({@code http://host:port}): {@code servers} names it. */
  public static JsonObject servedAt(JsonObject document, String origin) {
    return document.copy().put("servers", new JsonArray().add(new JsonObject().put("url", origin)
      .put("description", "the hub that served this document")));
  }

  private static JsonObject operation(RouteDoc r, ToolCatalog catalog) {
    JsonObject op = new JsonObject().put("summary", r.summary).put("tags", new JsonArray().add(r.tag))
      .put("operationId", r.id);
    JsonArray params = new JsonArray();
    Matcher m = PARAM.matcher(r.path);
    while (m.find()) {
      JsonObject schema = str();
      if ("tool".equals(m.group(1))) {
        // node tools on a node's path, hub tools on /api/v1/tools/{tool}; each by name or alias
        schema.put("enum", toolNames(catalog, r.path.startsWith("/api/v1/nodes/") ? t -> !t.runsOnHub() : ToolSpec::runsOnHub));
      }
      params.add(new JsonObject().put("name", m.group(1)).put("in", "path").put("required", true).put("schema", schema));
    }
    params.addAll(r.parameters);
    if (!params.isEmpty()) {
      op.put("parameters", params);
    }
    if (r.request != null) {
      op.put("requestBody", new JsonObject().put("required", false)
        .put("content", new JsonObject().put("application/json", new JsonObject().put("schema", r.request))));
    }
    JsonObject responses = r.responses.copy();
    if (r.secured && !responses.containsKey("401")) {
      responses.put("401", error("no, expired or invalid bearer token (the message says which)"));
    }
    if (!responses.containsKey("4XX") && !r.neverRefuses) {
      responses.put("4XX", error("refused: the message names the field, rule, role or unknown thing"));
    }
    if (r.path.startsWith("/api/v1/") && !responses.containsKey("5XX") && !r.neverRefuses) {
      responses.put("5XX", error("the hub or the node failed (500), is not ready (503) or timed out (504)"));
    }
    op.put("responses", responses);
    if (!r.secured) {
      op.put("security", new JsonArray());
    }
    return op;
  }

  private static JsonArray toolNames(ToolCatalog catalog, Predicate<ToolSpec> which) {
    JsonArray names = new JsonArray();
    catalog.all().stream().filter(which).forEach(t -> {
      names.add(t.name());
      t.aliases().forEach(names::add);
    });
    return names;
  }

  private static JsonObject error(String description) {
    return new JsonObject().put("description", description)
      .put("content", new JsonObject().put("application/json", new JsonObject().put("schema", ref("Error"))));
  }
}
