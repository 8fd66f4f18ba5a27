package io.fleetbus.hub.dashboard;

import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.api.Frontend;
import io.fleetbus.hub.api.OriginCheck;
import io.fleetbus.hub.api.TokenCheck;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.hub.settings.IdentitySettings;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.Vertx;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The dashboard's sign-in at a trusted issuer ({@code auth.issuers[].dashboard}): the hub is the OAuth client (a
 * token-mediating backend, as the OAuth browser-based-apps BCP calls it). {@code GET /login/start} sends the browser
 * to the issuer with a PKCE S256 challenge, a state and a nonce, and sets an HttpOnly cookie binding the attempt to
 * this browser; {@code GET /login/callback} takes the code (once, from that browser only), exchanges it with the
 * verifier, checks the ID token's nonce, and checks the access token exactly as a bearer token of the issuer (its
 * audience, the roles its groups map to); {@code POST /login/session} hands the page that token, or why it was
 * refused, once. No token or code is ever put in a URL the hub makes, nor logged.
 */
public final class DashboardLogin implements Frontend {
  static final String COOKIE = "fleetbus_login";
  private final IdentitySettings identity;
  private final TokenCheck tokens;
  private final OriginCheck origins;
  private final LoginAttempts attempts = new LoginAttempts();
  private final List<IssuerLogin> logins = new ArrayList<>();

  public DashboardLogin(IdentitySettings identity, TokenCheck tokens, OriginCheck origins) {
    this.identity = identity;
    this.tokens = tokens;
    this.origins = origins;
  }

  @Override
  public void mount(Vertx vertx, Router root, CallSubmitter calls) {
    logins.clear();
    identity.issuers().forEach(i -> logins.add(i.dashboard() == null ? null : new IssuerLogin(vertx, i)));
    ApiRoutes.bind(root, "loginOptions").handler(this::options);
    ApiRoutes.bind(root, "loginStart").handler(this::start);
    ApiRoutes.bind(root, "loginCallback").handler(this::callback);
    ApiRoutes.bind(root, "loginSession").handler(this::sameOrigin).handler(this::session);
  }

  private void options(RoutingContext ctx) {
    JsonArray list = new JsonArray();
    for (int i = 0; i < logins.size(); i++) {
      if (logins.get(i) != null) {
        list.add(new JsonObject().put("id", i).put("name", logins.get(i).name()));
      }
    }
    json(ctx, 200, new JsonObject().put("issuers", list));
  }

  private void start(RoutingContext ctx) {
    String id = ctx.request().getParam("issuer", "");
    int index = id.matches("\\d{1,3}") ? Integer.parseInt(id) : -1;
    if (index < 0 || index >= logins.size() || logins.get(index) == null) {
      json(ctx, 404, refusal(FailureCode.NOT_FOUND, "no issuer '" + id.replaceAll("[^\\w.-]", "?") + "' signs people in"
        + " to the dashboard: GET /login/options lists them (auth.issuers[].dashboard)"));
      return;
    }
    long now = System.currentTimeMillis();
    String binding = LoginAttempts.random();
    String state = attempts.begin(binding, index, base(ctx) + "/login/callback", now);
    ctx.response().addCookie(cookie(ctx, binding, LoginAttempts.ATTEMPT_MS / 1000));
    logins.get(index).authorizationUrl(attempts.attempt(state), state)
      .onSuccess(url -> redirect(ctx, url))
      .onFailure(err -> {
        attempts.take(state, now);
        attempts.finish(binding, refusal(FailureCode.NO_ELIGIBLE_NODE, "the issuer '" + logins.get(index).name()
          + "' cannot be reached (" + err.getMessage() + "): try again later, or sign in with a token"), now);
        redirect(ctx, base(ctx) + "/");
      });
  }

  private void callback(RoutingContext ctx) {
    long now = System.currentTimeMillis();
    String binding = cookieValue(ctx);
    LoginAttempts.Attempt attempt = attempts.take(ctx.request().getParam("state"), now);
    String home = base(ctx) + "/";
    if (attempt == null || !attempt.startedBy(binding)) {
      if (binding != null) {
        attempts.finish(binding, refusal(FailureCode.UNAUTHORIZED, "this sign-in was not started in this browser, or"
          + " took longer than " + LoginAttempts.ATTEMPT_MS / 60_000 + " minutes: sign in again"), now);
      }
      redirect(ctx, home);
      return;
    }
    String error = ctx.request().getParam("error");
    String code = ctx.request().getParam("code");
    if (error != null || code == null) {
      String why = error == null ? "no code" : printable(error) + describe(ctx.request().getParam("error_description"));
      attempts.finish(binding, refusal(FailureCode.UNAUTHORIZED, "the issuer did not sign you in: " + why), now);
      redirect(ctx, home);
      return;
    }
    logins.get(attempt.issuer()).exchange(code, attempt)
      .compose(token -> tokens.verify(token).map(caller -> signedIn(token, caller)))
      .onSuccess(answer -> attempts.finish(binding, answer, System.currentTimeMillis()))
      .onFailure(err -> attempts.finish(binding, refusal(FailureCode.UNAUTHORIZED, err instanceof FleetException
        ? "the hub refused the sign-in: " + err.getMessage() : "the sign-in failed"), System.currentTimeMillis()))
      .onComplete(done -> redirect(ctx, home));
  }

  /**
   * The page's own origin (the hub as the browser reaches it, behind a proxy too) or one of frontends.allowedOrigins;
   * another site's page never collects a sign-in (its request would not carry the cookie anyway: SameSite=Lax).
   */
  private void sameOrigin(RoutingContext ctx) {
    String origin = ctx.request().getHeader("Origin");
    if (origin != null && origin.strip().equalsIgnoreCase(base(ctx))) {
      ctx.next();
    } else {
      origins.handle(ctx);
    }
  }

  /** What the sign-in came to, once: 200 with the token, 401 (or 502) saying why not, 204 when nothing waits. */
  private void session(RoutingContext ctx) {
    String binding = cookieValue(ctx);
    JsonObject answer = attempts.collect(binding, System.currentTimeMillis());
    if (binding != null) {
      ctx.response().addCookie(cookie(ctx, "", 0));
    }
    if (answer == null) {
      ctx.response().setStatusCode(204).putHeader("Cache-Control", "no-store").end();
    } else {
      JsonObject error = answer.getJsonObject("error");
      json(ctx, error == null ? 200 : error.getInteger("code"), answer);
    }
  }

  private static JsonObject signedIn(String token, Caller caller) {
    return new JsonObject().put("token", token).put("subject", caller.subject()).put("roles", new JsonArray(caller.roles()));
  }

  private static JsonObject refusal(FailureCode code, String message) {
    return new JsonObject().put("error", new JsonObject().put("code", code.code).put("message", message));
  }

  /** The hub's address as the browser sees it: {@code auth.resource}, else the scheme and host the request came to. */
  private String base(RoutingContext ctx) {
    if (identity.resource() != null) {
      return identity.resource();
    }
    URI u = URI.create(ctx.request().absoluteURI());
    return u.getScheme() + "://" + u.getRawAuthority();
  }

  private Cookie cookie(RoutingContext ctx, String value, long maxAgeSeconds) {
    // Lax: sent on the issuer's top-level redirect back to the callback, never on another site's POST
    return Cookie.cookie(COOKIE, value).setPath("/login").setHttpOnly(true).setSameSite(CookieSameSite.LAX)
      .setMaxAge(maxAgeSeconds).setSecure(base(ctx).startsWith("https:"));
  }

  private static String cookieValue(RoutingContext ctx) {
    Cookie c = ctx.request().getCookie(COOKIE);
    return c == null || c.getValue().isEmpty() ? null : c.getValue();
  }

  private static void redirect(RoutingContext ctx, String location) {
    ctx.response().setStatusCode(303).putHeader("Location", location).putHeader("Cache-Control", "no-store")
      .putHeader("Referrer-Policy", "no-referrer").end();
  }

  private static void json(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json")
      .putHeader("Cache-Control", "no-store").end(body.encode());
  }

  private static String describe(String description) {
    return description == null ? "" : " (" + printable(description) + ")";
  }

  /** What the issuer sent back, as text a person can read (bounded, no control characters). */
  private static String printable(String s) {
    String t = s.replaceAll("\\p{Cntrl}", " ").strip();
    return t.length() > 300 ? t.substring(0, 300) + "…" : t;
  }
}
