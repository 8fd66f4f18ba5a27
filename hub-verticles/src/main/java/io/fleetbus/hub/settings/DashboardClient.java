package io.fleetbus.hub.settings;

import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code auth.issuers[].dashboard}: the dashboard offers "Sign in with {@code name}" and logs people in at this issuer
 * with the authorization code flow and PKCE, as the public client {@code clientId}. The hub exchanges the code; the
 * access token is then checked exactly as a bearer token of the issuer is (audience, roles mapping).
 *
 * @param clientId the client registered at the issuer for the dashboard (public, PKCE S256), whose redirect URI is
 *                 {@code <auth.resource>/login/callback}
 * @param name     what the button says after "Sign in with"; default the issuer's host
 * @param scopes   the scopes asked for; {@code openid} always among them (the ID token carries the nonce)
 * @param resource the RFC 8707 resource indicator sent with the authorization request, so the access token's
 *                 audience is one of {@code audience}; null: none sent (issuers that set the audience by a mapper)
 */
public record DashboardClient(String clientId, String name, List<String> scopes, String resource) {
  public DashboardClient {
    scopes = List.copyOf(scopes);
  }

  static DashboardClient fromConf(JsonObject j, String key, String issuer) {
    if (!(j.getValue("clientId") instanceof String clientId) || clientId.isBlank()) {
      throw new IllegalArgumentException(key + ".clientId must name the client registered at the issuer for the"
        + " dashboard (public, PKCE), not " + j.getValue("clientId"));
    }
    List<String> scopes = new ArrayList<>(List.of("openid"));
    IssuerSettings.strings(j.getValue("scopes", "openid")).stream().filter(s -> !scopes.contains(s))
      .forEach(scopes::add);
    Object resource = j.getValue("resource");
    if (resource != null && !(resource instanceof String r && absolute(r))) {
      throw new IllegalArgumentException(key + ".resource must be an absolute URL (the audience to ask a token for,"
        + " e.g. https://fleet.example.com/mcp), not " + resource);
    }
    String name = j.getValue("name") instanceof String n && !n.isBlank() ? n.strip() : URI.create(issuer).getHost();
    return new DashboardClient(clientId.strip(), name, scopes, (String) resource);
  }

  private static boolean absolute(String url) {
    try {
      URI u = URI.create(url);
      return u.isAbsolute() && u.getHost() != null && u.getRawFragment() == null;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
