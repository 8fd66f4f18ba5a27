package io.fleetbus.hub.auth;

import io.fleetbus.hub.settings.IssuerSettings;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.User;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One OpenID Connect issuer the hub trusts ({@link IssuerSettings}): its access tokens are checked as strictly as the
 * hub's own — {@link TokenRules} first (only RS256/ES256/EdDSA, its {@code iss}, one of its audiences, {@code exp} within
 * the hub's maximum lifetime, {@code nbf}, {@code iat}, no {@code crit}), then the signature with its published keys.
 * Keys come from its discovery document ({@code /.well-known/openid-configuration}, whose {@code issuer} must be this
 * one) and its {@code jwks_uri}; fetched again when a token names a key id not seen yet (a rotation), at most every
 * 2 s. Its groups (or roles) claim becomes fleetbus roles; a person with none is refused.
 */
final class TrustedIssuer {
  private static final Logger LOG = LoggerFactory.getLogger(TrustedIssuer.class);
  private static final long REFETCH_MS = 2_000;

  private final IssuerSettings settings;
  private final TokenRules rules;
  private final Vertx vertx;
  private final HttpClient http;
  private volatile JWTAuth keys;
  private volatile Set<String> keyIds = Set.of();
  private volatile long fetchedAt;
  private Future<JWTAuth> fetching;

  TrustedIssuer(Vertx vertx, IssuerSettings settings, TokenRules hub) {
    this.vertx = vertx;
    this.settings = settings;
    this.rules = new TokenRules(settings.issuer(), settings.audience(), hub.maxLifetime(), hub.skew(), hub.maxTokenBytes());
    this.http = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(5_000));
  }

  String issuer() {
    return settings.issuer();
  }

  /** The person the token stands for, with fleetbus roles; a 401 FleetException naming the rule it breaks. */
  Future<User> authenticate(String token) {
    JsonObject claims;
    String kid;
    try {
      claims = rules.check(token, System.currentTimeMillis(), settings.algorithms());
      kid = TokenRules.unverifiedHeader(token).getString("kid");
    } catch (FleetException | ClassCastException e) {
      return Future.failedFuture(e instanceof FleetException ? e : refuse("the token's key id (kid) is not a string"));
    }
    boolean unknownKey = keys == null || kid != null && !keyIds.contains(kid);
    return (unknownKey ? keys() : Future.succeededFuture(keys))
      .compose(auth -> auth.authenticate(new TokenCredentials(token)))
      .recover(err -> Future.failedFuture(err instanceof FleetException ? err
        : refuse("bearer token signature does not verify with the published keys of '" + settings.issuer() + "'")))
      .compose(verified -> person(claims));
  }

  /**
   * Fetches the issuer's keys again: one fetch at a time, at most one every 2 s (a token naming a key id nobody
   * published cannot make the hub hammer its issuer; a real rotation waits at most that long).
   */
  private synchronized Future<JWTAuth> keys() {
    if (fetching != null && !fetching.isComplete()) {
      return fetching;
    }
    long now = System.currentTimeMillis();
    long wait = fetchedAt + REFETCH_MS - now;
    fetchedAt = Math.max(now, fetchedAt + REFETCH_MS);
    Promise<Void> due = Promise.promise();
    if (wait > 0) {
      vertx.setTimer(wait, t -> due.complete());
    } else {
      due.complete();
    }
    fetching = due.future().compose(v -> get(settings.issuer() + "/.well-known/openid-configuration")).compose(meta -> {
      if (!settings.issuer().equals(meta.getString("issuer")) || meta.getString("jwks_uri") == null) {
        return Future.failedFuture(refuse("the discovery document of '" + settings.issuer() + "' names issuer '"
          + meta.getString("issuer") + "' or no jwks_uri: not trusted (auth.issuers)"));
      }
      return get(meta.getString("jwks_uri"));
    }).map(this::adopt);
    fetching.onFailure(err -> LOG.warn("issuer keys not fetched [issuer: {}, reason: {}]", settings.issuer(),
      err.getMessage()));
    return fetching;
  }

  private JWTAuth adopt(JsonObject jwks) {
    JWTAuthOptions options = new JWTAuthOptions().setJWTOptions(new JWTOptions().setIssuer(settings.issuer())
      .setLeeway((int) rules.skew().toSeconds()));
    Set<String> ids = new HashSet<>();
    for (Object o : jwks.getJsonArray("keys", new JsonArray())) {
      if (o instanceof JsonObject jwk && !"enc".equals(jwk.getString("use"))) {
        String alg = jwk.getString("alg", defaultAlg(jwk));
        if (alg != null && settings.algorithms().contains(alg)) {
          options.addJwk(jwk.copy().put("alg", alg));
          if (jwk.getString("kid") != null) {
            ids.add(jwk.getString("kid"));
          }
        }
      }
    }
    JWTAuth auth = JWTAuth.create(vertx, options);
    keys = auth;
    keyIds = Set.copyOf(ids);
    LOG.info("issuer keys fetched [issuer: {}, keys: {}]", settings.issuer(), ids.size());
    return auth;
  }

  private static String defaultAlg(JsonObject jwk) {
    return switch (jwk.getString("kty", "")) {
      case "RSA" -> "RS256";
      case "EC" -> "P-256".equals(jwk.getString("crv")) ? "ES256" : null;
      case "OKP" -> "Ed25519".equals(jwk.getString("crv")) ? "EdDSA" : null;
      default -> null;
    };
  }

  private Future<JsonObject> get(String url) {
    return http.request(new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(url).setIdleTimeout(10_000)
        .addHeader("Accept", "application/json"))
      .compose(req -> req.send().compose(resp -> resp.statusCode() == 200 ? resp.body()
        : Future.failedFuture(refuse("'" + url + "' answered " + resp.statusCode()))))
      .map(body -> body.toJsonObject());
  }

  /** The verified claims as the hub's user: the subject claim, the mapped roles, the token's id and times. */
  private Future<User> person(JsonObject claims) {
    Object subject = claims.getValue(settings.subjectClaim());
    if (!(subject instanceof String sub) || sub.isBlank()) {
      return Future.failedFuture(refuse("bearer token of '" + settings.issuer() + "' has no '" + settings.subjectClaim()
        + "' claim to name the person (auth.issuers[].subjectClaim)"));
    }
    List<String> groups = groups(claims);
    List<String> roles = settings.rolesOf(groups);
    if (roles.isEmpty()) {
      return Future.failedFuture(refuse("'" + sub + "' has no fleetbus role: their " + settings.rolesClaim() + " "
        + groups + " map to none (auth.issuers[].roles)"));
    }
    JsonObject principal = new JsonObject().put("sub", sub).put("roles", new JsonArray(roles))
      .put("iss", settings.issuer()).put("jti", claims.getValue("jti"));
    JsonObject attributes = new JsonObject().put("exp", claims.getValue("exp")).put("iat", claims.getValue("iat"));
    return Future.succeededFuture(User.create(principal, attributes));
  }

  /** The values at {@code rolesClaim} (a dotted path), as strings. */
  private List<String> groups(JsonObject claims) {
    Object at = claims;
    for (String step : settings.rolesClaim().split("\\.")) {
      at = at instanceof JsonObject o ? o.getValue(step) : null;
    }
    List<String> out = new ArrayList<>();
    if (at instanceof JsonArray a) {
      a.forEach(v -> out.add(String.valueOf(v)));
    } else if (at instanceof String s) {
      out.addAll(List.of(s.split(" ")));
    }
    return out;
  }

  private static FleetException refuse(String why) {
    return FailureCode.UNAUTHORIZED.exception(why);
  }
}
