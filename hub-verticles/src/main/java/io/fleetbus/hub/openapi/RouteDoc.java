package io.fleetbus.hub.openapi;

import io.vertx.core.json.JsonObject;

/**
 * One described route.
 *
 * @param path      in OpenAPI form ({@code /api/v1/nodes/{nodeId}})
 * @param request   the request body's schema, or null when there is none
 * @param status    the success status
 * @param response  the success body's schema, or null for none
 * @param secured   needs {@code Authorization: Bearer <JWT>}
 */
record RouteDoc(String method, String path, String summary, JsonObject request, int status, JsonObject response,
                boolean secured) {

  static JsonObject ref(String component) {
    return new JsonObject().put("$ref", "#/components/schemas/" + component);
  }
}
