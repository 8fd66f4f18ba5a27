package io.fleetbus.hub.openapi;

import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.api.Frontend;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;

/** {@code GET /api/v1/openapi.json}, without auth so tools can discover the API before they hold a token. */
public final class OpenApiEndpoint implements Frontend {
  public static final String PATH = "/api/v1/openapi.json";
  private final String document;

  public OpenApiEndpoint(ToolCatalog catalog) {
    this.document = OpenApiDocument.build(catalog).encodePrettily();
  }

  @Override
  public void mount(Vertx vertx, Router root, CallSubmitter calls) {
    root.get(PATH).handler(ctx -> ctx.response().putHeader("Content-Type", "application/json").end(document));
  }
}
