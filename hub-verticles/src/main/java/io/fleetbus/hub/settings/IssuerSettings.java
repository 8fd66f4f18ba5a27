package io.fleetbus.hub.settings;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One OpenID Connect issuer whose access tokens the hub accepts beside its own ({@code auth.issuers[]} in the hub's
 * conf). Its metadata and keys are discovered from {@code issuer}; its tokens must name one of {@code audience}.
 *
 * @param issuer       the issuer URL exactly as its tokens' {@code iss} says (https; http only on a loopback address)
 * @param audience     what a token's {@code aud} must include (at least one): the hub's resource URI, e.g.
 *                     {@code https://fleet.example.com/mcp}, and whatever audience the issuer gives the hub's clients
 * @param rolesClaim   where the groups or roles are in a token: a claim name, or a dotted path
 *                     ({@code realm_access.roles}); default {@code groups}
 * @param roles        group (or role) name → fleetbus roles; {@code "*"} gives roles to every user of the issuer
 * @param subjectClaim the claim that names the person (default {@code sub}; {@code preferred_username}, {@code email})
 * @param algorithms   the signature algorithms accepted, a subset of RS256, ES256, EdDSA (default: all three)
 * @param dashboard    how the dashboard signs people in at this issuer; null: it does not ({@link DashboardClient})
 */
public record IssuerSettings(String issuer, List<String> audience, String rolesClaim, Map<String, List<String>> roles,
                             String subjectClaim, List<String> algorithms, DashboardClient dashboard) {
  public static final List<String> ALGORITHMS = List.of("RS256", "ES256", "EdDSA");
  public static final Set<String> ROLES = Set.of("viewer", "operator", "admin", "approver");

  public IssuerSettings {
    audience = List.copyOf(audience);
    roles = Map.copyOf(roles);
    algorithms = List.copyOf(algorithms);
  }

  /** {@code auth.issuers[i]}, checked: an IllegalArgumentException naming the key and what it must be. */
  public static IssuerSettings fromConf(JsonObject j, int i) {
    String key = "auth.issuers[" + i + "]";
    String issuer = j.getValue("issuer") instanceof String s ? s.strip() : null;
    if (issuer == null || !trustworthy(issuer)) {
      throw new IllegalArgumentException(key + ".issuer must be the issuer's https URL (http only on 127.0.0.1 or"
        + " localhost), not " + j.getValue("issuer"));
    }
    List<String> audience = strings(j.getValue("audience"));
    if (audience.isEmpty()) {
      throw new IllegalArgumentException(key + ".audience must name the audience its tokens carry for this hub (its"
        + " resource URI, e.g. https://fleet.example.com/mcp)");
    }
    Map<String, List<String>> roles = new LinkedHashMap<>();
    j.getJsonObject("roles", new JsonObject()).forEach(e -> {
      List<String> mapped = strings(e.getValue());
      if (mapped.isEmpty() || !ROLES.containsAll(mapped)) {
        throw new IllegalArgumentException(key + ".roles." + e.getKey() + " must be one or more of " + ROLES + ", not "
          + e.getValue());
      }
      roles.put(e.getKey(), mapped);
    });
    List<String> algorithms = j.containsKey("algorithms") ? strings(j.getValue("algorithms")) : ALGORITHMS;
    if (algorithms.isEmpty() || !ALGORITHMS.containsAll(algorithms)) {
      throw new IllegalArgumentException(key + ".algorithms must be some of " + ALGORITHMS + " (never none or HS*), not "
        + j.getValue("algorithms"));
    }
    DashboardClient dashboard = j.getValue("dashboard") instanceof JsonObject d ? DashboardClient.fromConf(d,
      key + ".dashboard", issuer) : null;
    if (dashboard == null && j.containsKey("dashboard")) {
      throw new IllegalArgumentException(key + ".dashboard must be an object {clientId, name, scopes, resource}");
    }
    return new IssuerSettings(issuer, audience, j.getString("rolesClaim", "groups"), roles,
      j.getString("subjectClaim", "sub"), algorithms, dashboard);
  }

  /** The fleetbus roles of a token's groups (or roles): each mapped one's, and those of {@code "*"}. */
  public List<String> rolesOf(List<String> groups) {
    java.util.TreeSet<String> out = new java.util.TreeSet<>(roles.getOrDefault("*", List.of()));
    groups.forEach(g -> out.addAll(roles.getOrDefault(g, List.of())));
    return List.copyOf(out);
  }

  private static boolean trustworthy(String url) {
    try {
      URI u = URI.create(url);
      String host = u.getHost();
      return u.getRawQuery() == null && u.getRawFragment() == null && host != null && ("https".equals(u.getScheme())
        || "http".equals(u.getScheme()) && (host.equals("127.0.0.1") || host.equals("localhost") || host.equals("[::1]")));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  static List<String> strings(Object v) {
    if (v instanceof String s) {
      return s.isBlank() ? List.of() : List.of(s);
    }
    return v instanceof JsonArray a ? a.stream().map(String::valueOf).toList() : List.of();
  }
}
