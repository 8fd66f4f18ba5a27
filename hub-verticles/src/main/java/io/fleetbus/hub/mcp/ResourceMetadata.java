package io.fleetbus.hub.mcp;

import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.api.Frontend;
import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.hub.settings.IdentitySettings;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.net.URI;

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728), as MCP's authorization asks of a server (revision 2025-11-25):
 * {@code GET /.well-known/oauth-protected-resource/mcp} describes the MCP endpoint (resource {@code <hub>/mcp}),
 * {@code GET /.well-known/oauth-protected-resource} the hub as a whole; both name the issuers the hub trusts
 * ({@code auth.issuers}) as authorization servers. A 401 from /mcp points at the first ({@link #challenge}), so a chat
 * client discovers where to log in, asks its issuer for a token for that resource (RFC 8707), and comes back with it.
 */
public final class ResourceMetadata implements Frontend {
  public static final String WELL_KNOWN = "/.well-known/oauth-protected-resource";

  private final IdentitySettings identity;

  public ResourceMetadata(IdentitySettings identity) {
    this.identity = identity;
  }

  @Override
  public void mount(Vertx vertx, Router root, CallSubmitter calls) {
    ApiRoutes.bind(root, "hubResourceMetadata").handler(ctx -> answer(ctx, base(ctx)));
    ApiRoutes.bind(root, "mcpResourceMetadata").handler(ctx -> answer(ctx, base(ctx) + McpEndpoint.PATH));
  }

  private void answer(RoutingContext ctx, String resource) {
    JsonObject doc = new JsonObject().put("resource", resource)
      .put("authorization_servers", new JsonArray(identity.issuerUrls()))
      .put("bearer_methods_supported", new JsonArray().add("header"))
      .put("resource_name", "fleetbus hub");
    ctx.response().putHeader("Content-Type", "application/json").putHeader("Cache-Control", "max-age=300")
      .end(doc.encode());
  }

  /** The hub's public URL: {@code auth.resource}, else the scheme and authority this request came to. */
  private String base(RoutingContext ctx) {
    if (identity.resource() != null) {
      return identity.resource();
    }
    var authority = ctx.request().authority();
    return ctx.request().scheme() + "://" + (authority != null ? authority.toString()
      : ctx.request().localAddress().hostAddress() + ":" + ctx.request().localAddress().port());
  }

  /**
   * The {@code WWW-Authenticate} value of a 401 from /mcp (RFC 6750, RFC 9728 section 5.1): where the MCP endpoint's
   * metadata is, and {@code error="invalid_token"} when a token was sent and refused.
   */
  String challenge(RoutingContext ctx, boolean tokenSent) {
    URI resource = URI.create(base(ctx) + McpEndpoint.PATH);
    String origin = resource.getScheme() + "://" + resource.getRawAuthority();
    return "Bearer realm=\"fleetbus\", resource_metadata=\"" + origin + WELL_KNOWN + resource.getRawPath() + "\""
      + (tokenSent ? ", error=\"invalid_token\"" : "");
  }
}
