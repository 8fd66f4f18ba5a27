package io.fleetbus.hub.ws;

import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.hub.api.Frontend;
import io.fleetbus.hub.api.OriginCheck;
import io.fleetbus.hub.api.TokenCheck;
import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /api/v1/ws}: a WebSocket carrying calls, their stream chunks, approvals, cancels and live
 * subscriptions. The JWT comes in the Authorization header of the upgrade or in a first
 * {@code {type:"auth", token}} message; each call then takes the same path as REST ({@link CallSubmitter}).
 */
public final class WebSocketApi implements Frontend {
  private static final Logger LOG = LoggerFactory.getLogger(WebSocketApi.class);
  public static final String PATH = "/api/v1/ws";

  private final TokenCheck tokens;
  private final OriginCheck origins;
  private final WsLimits limits;

  public WebSocketApi(TokenCheck tokens, OriginCheck origins, WsLimits limits) {
    this.tokens = tokens;
    this.origins = origins;
    this.limits = limits;
  }

  @Override
  public void mount(Vertx vertx, Router root, CallSubmitter calls) {
    ApiRoutes.bind(root, "webSocket").handler(origins).handler(ctx -> upgrade(vertx, ctx, calls));
  }

  private void upgrade(Vertx vertx, RoutingContext ctx, CallSubmitter calls) {
    String header = ctx.request().getHeader("Authorization");
    Future<Caller> caller = header == null ? Future.succeededFuture(null) : tokens.verify(header);
    caller.onFailure(err -> ctx.response().setStatusCode(FailureCode.UNAUTHORIZED.code)
        .putHeader("content-type", "application/json")
        .end(new JsonObject().put("error", new JsonObject().put("code", 401).put("message", err.getMessage())).encode()))
      .onSuccess(c -> ctx.request().toWebSocket()
        .onSuccess(ws -> new WsSession(vertx, ws, c, tokens, calls, limits).start())
        .onFailure(err -> LOG.warn("websocket upgrade failed [remote: {}, reason: {}]", ctx.request().remoteAddress(),
          String.valueOf(err.getMessage()))));
  }
}
