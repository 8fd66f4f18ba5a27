package io.fleetbus.hub.dashboard;

import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.api.Frontend;
import io.fleetbus.hub.apidoc.ApiRoutes;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.StaticHandler;

/**
 * The operator dashboard: static HTML, CSS and JS modules from this jar (nothing fetched elsewhere),
 * {@code /} for the page and {@code /ui/*} for its assets. The page signs in with a user token and then
 * talks to the same API as any other client.
 */
public final class DashboardRoutes implements Frontend {
  static final String WEBROOT = "fleetbus/dashboard";
  // only this origin's scripts and styles; no framing; the token must not leak in a Referer header
  private static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

  @Override
  public void mount(Vertx vertx, Router root, CallSubmitter calls) {
    StaticHandler assets = StaticHandler.create(WEBROOT).setCachingEnabled(false).setDirectoryListing(false);
    ApiRoutes.bind(root, "dashboard").handler(DashboardRoutes::secureHeaders).handler(ctx -> ctx.reroute("/ui/index.html"));
    // assets are files, not API routes: no method binding (StaticHandler serves GET and HEAD only)
    root.route("/ui/*").handler(DashboardRoutes::secureHeaders).handler(assets);
  }

  private static void secureHeaders(RoutingContext ctx) {
    ctx.response().putHeader("Content-Security-Policy", CSP).putHeader("Referrer-Policy", "no-referrer")
      .putHeader("X-Content-Type-Options", "nosniff").putHeader("Cache-Control", "no-store");
    ctx.next();
  }
}
