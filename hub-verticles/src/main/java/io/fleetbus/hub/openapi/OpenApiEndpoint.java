package io.fleetbus.hub.openapi;

import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.api.Frontend;
import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.HostAndPort;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /api/v1/openapi.json}, without auth so tools can discover the API before they hold a token. Its
 * {@code servers} is the address the document was asked at (the hub cannot know how callers reach it otherwise).
 */
public final class OpenApiEndpoint implements Frontend {
  public static final String PATH = "/api/v1/openapi.json";
  private final JsonObject document;

  public OpenApiEndpoint(ToolCatalog catalog) {
    this.document = OpenApiDocument.build(catalog);
  }

  @Override
  public void mount(Vertx vertx, Router root, CallSubmitter calls) {
    ApiRoutes.bind(root, "openApiDocument").handler(ctx -> ctx.response().putHeader("Content-Type", "application/json")
      .end(OpenApiDocument.servedAt(document, origin(ctx)).encodePrettily()));
  }

  private static String origin(RoutingContext ctx) {
    HostAndPort at = ctx.request().authority();
    if (at == null || at.host() == null || at.host().isBlank()) {
      return "/";
    }
    String host = at.host().contains(":") && !at.host().startsWith("[") ? "[" + at.host() + "]" : at.host();
    return ctx.request().scheme() + "://" + host + (at.port() > 0 ? ":" + at.port() : "");
  }
}
