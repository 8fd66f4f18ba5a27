package io.fleetbus.hub.auth;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.trust.Digests;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What a user token must say before its signature is even checked (RFC 7519 claims, RFC 8725 practice):
 * the hub's algorithm only ({@code alg} pinned, no {@code crit} extensions), this hub's issuer, a subject,
 * an expiry no further than {@code maxLifetime} from its issue time, {@code nbf}/{@code iat} not in the
 * future (beyond {@code skew}), the configured audience when there is one, and a size a header can carry.
 * Every refusal is a 401 FleetException saying which rule failed; the token itself is never echoed.
 *
 * <p>conf/hub.json: {@code "auth": {"issuer": "fleetbus", "audience": null, "maxTokenLifetimeMinutes": 720}}.
 */
public record TokenRules(String issuer, List<String> audience, Duration maxLifetime, Duration skew, int maxTokenBytes) {
  public static final String DEFAULT_ISSUER = "fleetbus";
  public static final int MAX_TOKEN_BYTES = 8 * 1024;
  public static final TokenRules DEFAULT = new TokenRules(DEFAULT_ISSUER, List.of(), Duration.ofHours(12),
    Duration.ofSeconds(60), MAX_TOKEN_BYTES);

  public TokenRules {
    audience = List.copyOf(audience);
  }

  public static TokenRules fromConf(JsonObject conf) {
    JsonObject auth = conf.getJsonObject("auth", new JsonObject());
    Object aud = auth.getValue("audience");
    List<String> audience = aud instanceof String s ? List.of(s)
      : aud instanceof JsonArray a ? a.stream().map(String::valueOf).toList() : List.of();
    long minutes = auth.getLong("maxTokenLifetimeMinutes", DEFAULT.maxLifetime.toMinutes());
    if (minutes < 1) {
      throw new IllegalArgumentException("auth.maxTokenLifetimeMinutes must be at least 1, not " + minutes);
    }
    return new TokenRules(auth.getString("issuer", DEFAULT_ISSUER), audience, Duration.ofMinutes(minutes),
      DEFAULT.skew, MAX_TOKEN_BYTES);
  }

  /** The token's claims when it obeys every rule at {@code nowMs}; else a 401 naming the rule it breaks. */
  public JsonObject check(String token, long nowMs) {
    return check(token, nowMs, List.of(HubKeys.ALGORITHM));
  }

  /** The claims of a JWT before anything about it is checked (to see who claims to have issued it); null if malformed. */
  public static JsonObject unverifiedClaims(String token) {
    String[] parts = token.split("\\.", -1);
    try {
      return parts.length == 3 ? json(parts[1]) : null;
    } catch (FleetException e) {
      return null;
    }
  }

  /** The header of a JWT, unchecked; a 401 when it is not base64url JSON. */
  public static JsonObject unverifiedHeader(String token) {
    return json(token.split("\\.", -1)[0]);
  }

  /** As {@link #check(String, long)}, for tokens signed with one of {@code algorithms} (an issuer's, say). */
  public JsonObject check(String token, long nowMs, List<String> algorithms) {
    if (token.length() > maxTokenBytes) {
      throw refuse("token too large: " + token.length() + " bytes, at most " + maxTokenBytes);
    }
    String[] parts = token.split("\\.", -1);
    if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty() || parts[2].isEmpty()) {
      throw refuse("malformed bearer token: a JWT has three dot-separated parts");
    }
    JsonObject header = json(parts[0]);
    JsonObject claims = json(parts[1]);
    Object alg = header.getValue("alg");
    if (!(alg instanceof String named) || !algorithms.contains(named)) {
      throw refuse("bearer token algorithm '" + alg + "' is not accepted: tokens of '" + issuer + "' must be "
        + String.join(" or ", algorithms));
    }
    if (header.containsKey("crit")) {
      throw refuse("bearer token header has 'crit' extensions this hub does not understand");
    }
    long now = nowMs / 1000;
    long skewS = skew.toSeconds();
    Long exp = seconds(claims, "exp");
    if (exp == null) {
      throw refuse("bearer token has no 'exp' (expiry): tokens must expire (scripts/token.sh sets one)");
    }
    if (exp <= now) {
      throw refuse("bearer token expired at " + Instant.ofEpochSecond(exp) + ": mint a new one (scripts/token.sh)");
    }
    Long nbf = seconds(claims, "nbf");
    if (nbf != null && nbf > now + skewS) {
      throw refuse("bearer token is not valid before " + Instant.ofEpochSecond(nbf) + " (nbf; this hub's clock says "
        + Instant.ofEpochSecond(now) + ")");
    }
    Long iat = seconds(claims, "iat");
    if (iat != null && iat > now + skewS) {
      throw refuse("bearer token was issued in the future (iat " + Instant.ofEpochSecond(iat) + "; this hub's clock says "
        + Instant.ofEpochSecond(now) + "): check the minting machine's clock");
    }
    long from = iat != null ? Math.min(iat, now) : now;
    if (exp - from > maxLifetime.toSeconds() + skewS) {
      throw refuse("bearer token lives " + Duration.ofSeconds(exp - from).toMinutes() + " minutes, longer than this hub's"
        + " limit of " + maxLifetime.toMinutes() + " minutes (auth.maxTokenLifetimeMinutes): mint a shorter one");
    }
    if (!(claims.getValue("iss") instanceof String iss)) {
      throw refuse("bearer token has no 'iss' (issuer); this hub accepts '" + issuer + "'");
    }
    if (!issuer.equals(iss)) {
      throw refuse("bearer token issuer '" + printable(iss) + "' is not this hub's ('" + issuer + "')");
    }
    if (!(claims.getValue("sub") instanceof String sub) || sub.isBlank()) {
      throw refuse("bearer token has no 'sub' (subject): nobody to act for");
    }
    if (!audience.isEmpty()) {
      Object aud = claims.getValue("aud");
      List<String> said = aud instanceof String s ? List.of(s)
        : aud instanceof JsonArray a ? a.stream().map(String::valueOf).toList() : List.of();
      if (said.stream().noneMatch(audience::contains)) {
        throw refuse("bearer token audience " + (said.isEmpty() ? "is missing" : said.stream().map(TokenRules::printable).toList()
          + " is not") + " this hub's " + audience);
      }
    }
    return claims;
  }

  private static Long seconds(JsonObject claims, String name) {
    Object v = claims.getValue(name);
    if (v == null) {
      return null;
    }
    if (v instanceof Number n) {
      return n.longValue();
    }
    throw refuse("bearer token claim '" + name + "' must be a number of seconds (NumericDate)");
  }

  private static JsonObject json(String part) {
    try {
      return new JsonObject(new String(Digests.fromBase64Url(part), StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      throw refuse("malformed bearer token: its header or claims are not base64url JSON");
    }
  }

  /** A claim as shown in a message: short, no control characters. */
  static String printable(String s) {
    String cut = s.length() > 40 ? s.substring(0, 40) + "…" : s;
    return cut.replaceAll("\\p{Cntrl}", "?");
  }

  private static FleetException refuse(String why) {
    return FailureCode.UNAUTHORIZED.exception(why);
  }
}
