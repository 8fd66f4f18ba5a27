package io.fleetbus.hub.auth;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.impl.UserContextInternal;
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
  private final RevocationList revocations;
  private final Map<String, Verified> cache = new ConcurrentHashMap<>();

  private record Verified(User user, long expiresAtMs) {
  }

  public BearerAuth(Vertx vertx, JWTAuth auth) {
    this.vertx = vertx;
    this.auth = auth;
    this.revocations = UserTokens.revocationsOf(auth);
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

  /** The user a token stands for, or a 401 FleetException saying why not ({@link TokenRules}, then the signature). */
  public Future<User> authenticate(String token) {
    long now = System.currentTimeMillis();
    Verified hit = token.length() > TokenRules.MAX_TOKEN_BYTES ? null : cache.get(token);
    if (hit != null && hit.expiresAtMs > now) {
      // verified before: the revocation list is asked again on every use (a revoked token may still be cached)
      return revocations.unlessRevoked(hit.user);
    }
    return vertx.executeBlocking(() -> verify(token), false)
      .onSuccess(user -> remember(token, user, expiresAtMs(user, now), now));
  }

  private User verify(String token) throws Exception {
    try {
      return auth.authenticate(new TokenCredentials(token)).toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof FleetException fe) {
        throw fe;
      }
      String why = String.valueOf(e.getCause() == null ? null : e.getCause().getMessage());
      throw FailureCode.UNAUTHORIZED.exception(why.contains("expired")
        ? "bearer token expired: mint a new one (scripts/token.sh)"
        : "bearer token signature does not verify with this hub's key (minted by another hub, or altered)");
    }
  }

  /** When the token expires (its {@code exp}, checked present by the rules); a minute when unknown. */
  private static long expiresAtMs(User user, long now) {
    Long exp = user.principal().getLong("exp", user.attributes() == null ? null : user.attributes().getLong("exp"));
    return exp == null ? now + 60_000 : exp * 1000;
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

  private static void refuse(RoutingContext ctx, Throwable err) {
    String message = err instanceof FleetException ? err.getMessage() : "bearer token refused";
    if (!ctx.response().ended()) {
      ctx.response().setStatusCode(401).putHeader("content-type", "application/json")
        .putHeader("WWW-Authenticate", "Bearer realm=\"fleetbus\"")
        .end(new JsonObject().put("error", new JsonObject().put("code", 401).put("message", message)).encode());
    }
  }
}
