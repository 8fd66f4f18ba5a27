package io.fleetbus.hub.auth;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.User;
import io.vertx.ext.auth.authentication.Credentials;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hub's user-token provider: {@link TokenRules} first (claims, algorithm, size), then the signature.
 * Every frontend (REST, WebSocket, MCP, both bridges) authenticates through an instance of this, so the
 * rules hold everywhere; last, its {@link RevocationList}. Tokens it mints carry its issuer and an id ({@code jti}).
 */
public final class UserTokens implements JWTAuth {
  private final JWTAuth signatures;
  private final TokenRules rules;
  private final RevocationList revocations = new RevocationList();
  /** The OpenID Connect issuers trusted beside the hub itself (auth.issuers), by issuer URL; usually none. */
  private final Map<String, TrustedIssuer> issuers;

  UserTokens(JWTAuth signatures, TokenRules rules) {
    this(signatures, rules, List.of());
  }

  UserTokens(JWTAuth signatures, TokenRules rules, List<TrustedIssuer> issuers) {
    this.signatures = signatures;
    this.rules = rules;
    Map<String, TrustedIssuer> byUrl = new LinkedHashMap<>();
    issuers.forEach(i -> byUrl.put(i.issuer(), i));
    this.issuers = Map.copyOf(byUrl);
  }

  JWTAuth signatures() {
    return signatures;
  }

  public TokenRules rules() {
    return rules;
  }

  /** The revocations every check of this provider consults (kept current by the revocation verticle). */
  public RevocationList revocations() {
    return revocations;
  }

  /** The list behind {@code auth} when it is the hub's provider; an empty one of its own otherwise. */
  public static RevocationList revocationsOf(JWTAuth auth) {
    return auth instanceof UserTokens u ? u.revocations : new RevocationList();
  }


  @Override
  public Future<User> authenticate(Credentials credentials) {
    if (!(credentials instanceof TokenCredentials tc) || tc.getToken() == null) {
      return Future.failedFuture(FailureCode.UNAUTHORIZED.exception("no bearer token"));
    }
    String token = tc.getToken().strip();
    Object iss = issuers.isEmpty() ? null : claimedIssuer(token);
    if (iss instanceof String other && !other.equals(rules.issuer())) {
      TrustedIssuer trusted = issuers.get(other);
      return trusted == null
        ? Future.failedFuture(FailureCode.UNAUTHORIZED.exception("bearer token issuer '" + TokenRules.printable(other)
          + "' is not trusted here: this hub accepts its own ('" + rules.issuer() + "') and " + issuers.keySet()
          + " (auth.issuers)"))
        : trusted.authenticate(token).compose(revocations::unlessRevoked);
    }
    try {
      rules.check(token, System.currentTimeMillis());
    } catch (FleetException e) {
      return Future.failedFuture(e);
    }
    return signatures.authenticate(credentials).recover(err -> Future.failedFuture(err instanceof FleetException ? err
      : FailureCode.UNAUTHORIZED.exception("bearer token signature does not verify with this hub's key (minted by another"
        + " hub, or altered)"))).compose(revocations::unlessRevoked);
  }

  private static Object claimedIssuer(String token) {
    if (token.length() > TokenRules.MAX_TOKEN_BYTES) {
      return null;
    }
    JsonObject claims = TokenRules.unverifiedClaims(token);
    return claims == null ? null : claims.getValue("iss");
  }

  @Override
  public String generateToken(JsonObject claims, JWTOptions options) {
    return signatures.generateToken(claims, options);
  }

  @Override
  public String generateToken(JsonObject claims) {
    return signatures.generateToken(claims);
  }
}
