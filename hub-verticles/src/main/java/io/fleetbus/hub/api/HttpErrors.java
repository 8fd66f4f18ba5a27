package io.fleetbus.hub.api;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.hub.auth.TokenRules;
import io.fleetbus.shared.fault.FaultSwitch;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.HttpException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns failures into {@code {error:{code, message}}} bodies with the failure code as HTTP status. */
final class HttpErrors {
  private static final Logger LOG = LoggerFactory.getLogger(HttpErrors.class);
  /** Fault switch for tests only (-Dfleetbus.fault.keepUnreadOpen=true): the connection stays open, as before issue 21. */
  private static final boolean KEEP_UNREAD_OPEN = FaultSwitch.KEEP_UNREAD_OPEN.on();

  private HttpErrors() {
  }

  static void send(RoutingContext ctx, FailureCode code, String message) {
    if (ctx.response().ended()) {
      return;
    }
    // answered before the body was read (413, or refused before it): the client may still be writing it, so the
    // connection is closed after the answer (a keep-alive client would otherwise wait on a body nobody reads)
    boolean unread = hasBody(ctx) && !ctx.request().isEnded() && !KEEP_UNREAD_OPEN;
    if (unread) {
      ctx.response().putHeader("connection", "close");
    }
    ctx.response().setStatusCode(code.code).putHeader("content-type", "application/json")
      .end(new JsonObject().put("error", new JsonObject().put("code", code.code).put("message", message)).encode())
      .onComplete(v -> {
        if (unread) {
          ctx.request().connection().close();
        }
      });
  }

  private static boolean hasBody(RoutingContext ctx) {
    String length = ctx.request().getHeader("content-length");
    return length != null && !"0".equals(length.strip()) || ctx.request().getHeader("transfer-encoding") != null;
  }

  static void fail(RoutingContext ctx, Throwable err) {
    FailureCode code = FailureCode.of(err);
    String message = err.getMessage();
    if (!(err instanceof ReplyException) && !(err instanceof io.fleetbus.shared.bus.FleetException)) {
      LOG.error("request failed [path: {}]", ctx.normalizedPath(), err);
      message = "internal error; see the hub log";
    }
    send(ctx, code, message);
  }

  /**
   * A request the HTTP decoder refused before any route saw it. Headers over the server's limit are nearly
   * always an oversized bearer token: answered 401 JSON "token too large" (not a bare 431) and closed.
   */
  static void invalidRequest(HttpServerRequest request) {
    Throwable cause = request.decoderResult().cause();
    if (!(cause instanceof TooLongHttpHeaderException)) {
      HttpServerRequest.DEFAULT_INVALID_REQUEST_HANDLER.handle(request);
      return;
    }
    request.response().setStatusCode(FailureCode.UNAUTHORIZED.code).putHeader("content-type", "application/json")
      .putHeader("Connection", "close").putHeader("WWW-Authenticate", "Bearer realm=\"fleetbus\"")
      .end(new JsonObject().put("error", new JsonObject().put("code", FailureCode.UNAUTHORIZED.code)
        .put("message", "token too large: the request headers exceed " + ApiVerticle.MAX_HEADER_BYTES / 1024
          + " KiB (a bearer token may be at most " + TokenRules.MAX_TOKEN_BYTES / 1024 + " KiB)")).encode())
      .onComplete(v -> request.connection().close());
  }

  /** The router's failure handler: auth failures, bad bodies and anything thrown by a route. */
  static void handle(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    if (failure != null && !(failure instanceof HttpException)) {
      fail(ctx, failure);
      return;
    }
    int status = failure instanceof HttpException he ? he.getStatusCode() : ctx.statusCode();
    switch (status) {
      case 401 -> send(ctx, FailureCode.UNAUTHORIZED,
        "missing, expired or invalid bearer token: send Authorization: Bearer <JWT>");
      case 403 -> send(ctx, FailureCode.FORBIDDEN, "forbidden");
      case 404 -> send(ctx, FailureCode.NOT_FOUND, "no such route " + ctx.request().method() + " " + ctx.normalizedPath());
      case 413 -> send(ctx, FailureCode.TOO_LARGE, "request body too large: at most "
        + ApiVerticle.MAX_BODY_BYTES / 1024 + " KiB; the connection is closed");
      default -> send(ctx, status >= 500 ? FailureCode.TOOL_FAILED : FailureCode.BAD_REQUEST, "request failed (" + status + ")");
    }
  }
}
