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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
  /** Sockets without a header token that have not authenticated (nor closed) yet. */
  private final AtomicInteger waiting = new AtomicInteger();

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
    Runnable done = header != null ? () -> { } : waiter();
    if (done == null) {
      // each may hold a whole frame (1 MiB) before its auth message is read: their number is what bounds it
      refuse(ctx, FailureCode.RATE_LIMITED, limits.maxUnauthenticatedSockets() + " WebSockets are waiting for their"
        + " auth message; frontends.ws.maxUnauthenticatedSockets allows more (or send the token in the Authorization"
        + " header)");
      return;
    }
    Future<Caller> caller = header == null ? Future.succeededFuture(null) : tokens.verify(header);
    caller.onFailure(err -> refuse(ctx, FailureCode.UNAUTHORIZED, err.getMessage()))
      .onSuccess(c -> ctx.request().toWebSocket()
        .onSuccess(ws -> new WsSession(vertx, ws, c, tokens, calls, limits, done).start())
        .onFailure(err -> {
          done.run();
          LOG.warn("websocket upgrade failed [remote: {}, reason: {}]", ctx.request().remoteAddress(),
            String.valueOf(err.getMessage()));
        }));
  }

  /** A place among the sockets waiting for their auth message, given back once; null when none is left. */
  private Runnable waiter() {
    if (waiting.incrementAndGet() > limits.maxUnauthenticatedSockets()) {
      waiting.decrementAndGet();
      return null;
    }
    AtomicBoolean given = new AtomicBoolean();
    return () -> {
      if (given.compareAndSet(false, true)) {
        waiting.decrementAndGet();
      }
    };
  }

  private static void refuse(RoutingContext ctx, FailureCode code, String message) {
    ctx.response().setStatusCode(code.code).putHeader("content-type", "application/json")
      .end(new JsonObject().put("error", new JsonObject().put("code", code.code).put("message", message)).encode());
  }
}
