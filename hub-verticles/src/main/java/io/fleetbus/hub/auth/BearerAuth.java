package io.fleetbus.hub.auth;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.trust.Digests;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.impl.UserContextInternal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Checks user bearer tokens and says exactly why one is refused (missing, malformed, expired, wrong
 * signature) — always 401, never echoing the token. An ES256 check costs about a millisecond on this
 * class of machine, so it runs on a worker once per token and the verified user is cached until the
 * token expires. Usable by any frontend ({@link #authenticate(String)}) and as a route handler.
 */
public final class BearerAuth implements Handler<RoutingContext> {
  private static final int MAX_CACHED = 10_000;

  private final Vertx vertx;
  private final JWTAuth auth;
  private final Map<String, Verified> cache = new ConcurrentHashMap<>();

  private record Verified(User user, long expiresAtMs) {
  }

  public BearerAuth(Vertx vertx, JWTAuth auth) {
    this.vertx = vertx;
    this.auth = auth;
  }

  @Override
  public void handle(RoutingContext ctx) {
    String header = ctx.request().getHeader("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7) || header.length() <= 7) {
      refuse(ctx, FailureCode.UNAUTHORIZED.exception("missing bearer token: send Authorization: Bearer <JWT>"
        + " (scripts/token.sh mints one)"));
      return;
    }
    // the check may finish on a worker: hold the body back for the body handler that follows
    if (!ctx.request().isEnded()) {
      ctx.request().pause();
    }
    authenticate(header.substring(7).strip()).onComplete(ar -> {
      if (ar.succeeded()) {
        ((UserContextInternal) ctx.userContext()).setUser(ar.result());
        ctx.next();
      } else {
        if (!ctx.request().isEnded()) {
          ctx.request().resume();
        }
        refuse(ctx, ar.cause());
      }
    });
  }

  /** The user a token stands for, or a 401 FleetException saying why not. */
  public Future<User> authenticate(String token) {
    long now = System.currentTimeMillis();
    Verified hit = cache.get(token);
    if (hit != null && hit.expiresAtMs > now) {
      return Future.succeededFuture(hit.user);
    }
    JsonObject claims;
    try {
      claims = readClaims(token);
      Long exp = claims.getLong("exp");
      if (exp != null && exp * 1000 <= now) {
        throw FailureCode.UNAUTHORIZED.exception("bearer token expired at " + Instant.ofEpochSecond(exp)
          + ": mint a new one (scripts/token.sh)");
      }
    } catch (FleetException e) {
      return Future.failedFuture(e);
    }
    long expiresAtMs = claims.getLong("exp", Long.MAX_VALUE / 1000) * 1000;
    return vertx.executeBlocking(() -> verify(token), false).onSuccess(user -> remember(token, user, expiresAtMs, now));
  }

  private User verify(String token) throws Exception {
    try {
      return auth.authenticate(new TokenCredentials(token)).toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      String why = String.valueOf(e.getCause() == null ? null : e.getCause().getMessage());
      throw FailureCode.UNAUTHORIZED.exception(why.contains("expired")
        ? "bearer token expired: mint a new one (scripts/token.sh)"
        : "bearer token signature does not verify with this hub's key (minted by another hub, or altered)");
    }
  }

  private void remember(String token, User user, long expiresAtMs, long now) {
    if (cache.size() >= MAX_CACHED) {
      cache.values().removeIf(v -> v.expiresAtMs <= now);
      if (cache.size() >= MAX_CACHED) {
        cache.clear();
      }
    }
    cache.put(token, new Verified(user, expiresAtMs));
  }

  private static JsonObject readClaims(String token) {
    String[] parts = token.split("\\.", -1);
    if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty() || parts[2].isEmpty()) {
      throw FailureCode.UNAUTHORIZED.exception("malformed bearer token: a JWT has three dot-separated parts");
    }
    try {
      new JsonObject(new String(Digests.fromBase64Url(parts[0]), StandardCharsets.UTF_8));
      return new JsonObject(new String(Digests.fromBase64Url(parts[1]), StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      throw FailureCode.UNAUTHORIZED.exception("malformed bearer token: its header or claims are not base64url JSON");
    }
  }

  private static void refuse(RoutingContext ctx, Throwable err) {
    String message = err instanceof FleetException ? err.getMessage() : "bearer token refused";
    if (!ctx.response().ended()) {
      ctx.response().setStatusCode(401).putHeader("content-type", "application/json")
        .putHeader("WWW-Authenticate", "Bearer realm=\"fleetbus\"")
        .end(new JsonObject().put("error", new JsonObject().put("code", 401).put("message", message)).encode());
    }
  }
}
