package io.fleetbus.hub.apidoc;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * One described route: its path in OpenAPI form ({@code /api/v1/nodes/{nodeId}}), request body, query parameters and
 * the responses it really gives (status → OpenAPI response object). Secured (bearer JWT) unless {@link #open()}.
 */
public final class RouteDoc {
  /** The route's name: what a frontend binds it by ({@link ApiRoutes#bind}), and its OpenAPI operationId. */
  public final String id;
  public final String method;
  public final String path;
  public final String summary;
  public final String tag;
  public boolean secured = true;
  /** Answers as described whatever is asked (no refusal to document). */
  public boolean neverRefuses;
  public JsonObject request;
  public final JsonArray parameters = new JsonArray();
  public final JsonObject responses = new JsonObject();

  RouteDoc(String id, String method, String path, String tag, String summary) {
    this.id = id;
    this.method = method;
    this.path = path;
    this.tag = tag;
    this.summary = summary;
  }

  /** Answers without a token. */
  RouteDoc open() {
    secured = false;
    return this;
  }

  /** Has no 4xx or 5xx answer (health, metrics, the dashboard page, this document). */
  RouteDoc neverRefuses() {
    neverRefuses = true;
    return this;
  }

  /** A JSON request body (optional for the client unless the schema requires fields). */
  RouteDoc body(JsonObject schema) {
    request = schema;
    return this;
  }

  RouteDoc query(String name, JsonObject schema, String description) {
    parameters.add(new JsonObject().put("name", name).put("in", "query").put("required", false)
      .put("description", description).put("schema", schema));
    return this;
  }

  RouteDoc header(String name, JsonObject schema, String description) {
    parameters.add(new JsonObject().put("name", name).put("in", "header").put("required", false)
      .put("description", description).put("schema", schema));
    return this;
  }

  /** A JSON answer. */
  RouteDoc answers(String status, String description, JsonObject schema) {
    return answers(status, description, "application/json", schema);
  }

  /** An answer of another media type, or (schema null and media type null) without a body. */
  RouteDoc answers(String status, String description, String mediaType, JsonObject schema) {
    JsonObject response = new JsonObject().put("description", description);
    if (mediaType != null) {
      response.put("content", new JsonObject().put(mediaType, new JsonObject().put("schema", schema)));
    }
    responses.put(status, response);
    return this;
  }

  /** One more media type for an answer already described. */
  RouteDoc alsoAs(String status, String mediaType, JsonObject schema) {
    responses.getJsonObject(status).getJsonObject("content").put(mediaType, new JsonObject().put("schema", schema));
    return this;
  }
}
