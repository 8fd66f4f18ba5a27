package io.fleetbus.hub.settings;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Who the hub trusts for user tokens besides itself, and how it names itself to OAuth clients ({@code auth} in the
 * hub's conf): {@code "auth": {"resource": "https://fleet.example.com", "issuers": [{...}]}}. With no issuer the hub
 * trusts its own tokens only, as before.
 *
 * @param resource the hub's public URL (no trailing slash), which MCP clients use; null: the URL a request came to
 * @param issuers  the OpenID Connect issuers trusted ({@link IssuerSettings})
 */
public record IdentitySettings(String resource, List<IssuerSettings> issuers) {
  public static final IdentitySettings NONE = new IdentitySettings(null, List.of());

  public IdentitySettings {
    issuers = List.copyOf(issuers);
  }

  public static IdentitySettings fromConf(JsonObject conf) {
    JsonObject auth = conf.getJsonObject("auth", new JsonObject());
    String resource = auth.getString("resource");
    if (resource != null && !resource.matches("https?://[^/?#\\s]+(/[^?#\\s]*)?")) {
      throw new IllegalArgumentException("auth.resource must be the hub's public URL (https://host[:port][/path]), not "
        + resource);
    }
    List<IssuerSettings> issuers = new ArrayList<>();
    JsonArray list = auth.getJsonArray("issuers", new JsonArray());
    for (int i = 0; i < list.size(); i++) {
      if (!(list.getValue(i) instanceof JsonObject j)) {
        throw new IllegalArgumentException("auth.issuers[" + i + "] must be an object {issuer, audience, rolesClaim, roles}");
      }
      issuers.add(IssuerSettings.fromConf(j, i));
    }
    return new IdentitySettings(resource == null ? null : resource.replaceAll("/+$", ""), issuers);
  }

  /** The issuers' URLs, for the protected-resource metadata. */
  public List<String> issuerUrls() {
    return issuers.stream().map(IssuerSettings::issuer).toList();
  }
}
