package io.fleetbus.hub.api;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Browser pages from other sites must not drive the hub with a user's token (DNS rebinding, CSRF on
 * MCP/WebSocket/SockJS). Requests without an Origin header come from non-browser clients and pass.
 */
public final class OriginCheck implements Handler<RoutingContext> {
  private final Set<String> allowed;

  public OriginCheck(List<String> allowedOrigins) {
    this.allowed = allowedOrigins.stream().map(OriginCheck::normalize).collect(Collectors.toUnmodifiableSet());
  }

  public boolean allows(String origin) {
    return origin == null || allowed.contains(normalize(origin));
  }

  @Override
  public void handle(RoutingContext ctx) {
    String origin = ctx.request().getHeader("Origin");
    if (allows(origin)) {
      ctx.next();
    } else {
      HttpErrors.send(ctx, FailureCode.FORBIDDEN, "origin " + origin + " is not allowed; add it to frontends.allowedOrigins in the hub's conf");
    }
  }

  private static String normalize(String origin) {
    String o = origin.strip().toLowerCase(Locale.ROOT);
    return o.endsWith("/") ? o.substring(0, o.length() - 1) : o;
  }
}
