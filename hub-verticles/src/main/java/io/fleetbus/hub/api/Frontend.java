package io.fleetbus.hub.api;

import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;

/** An interface served beside the REST routes (WebSocket, MCP, SockJS bridge, OpenAPI) on the hub's HTTP server. */
public interface Frontend {

  /** Adds its routes to the root router; they run before the JWT-protected {@code /api/v1/*} routes. */
  void mount(Vertx vertx, Router root, CallSubmitter calls);
}
