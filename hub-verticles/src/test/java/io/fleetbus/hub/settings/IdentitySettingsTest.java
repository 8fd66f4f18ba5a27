package io.fleetbus.hub.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code auth.issuers}: what a hub refuses to start with names the key; no issuers is the default and changes nothing. */
class IdentitySettingsTest {

  static IdentitySettings with(JsonObject issuer) {
    return IdentitySettings.fromConf(new JsonObject().put("auth", new JsonObject().put("issuers", new JsonArray().add(issuer))));
  }

  static JsonObject issuer() {
    return new JsonObject().put("issuer", "https://sso.example.com/realms/ops").put("audience", "https://fleet.example.com/mcp")
      .put("rolesClaim", "realm_access.roles").put("roles", new JsonObject().put("ops", new JsonArray().add("operator"))
        .put("sre", new JsonArray().add("admin").add("approver")).put("*", "viewer"));
  }

  @Test
  void noIssuerIsTheDefault() {
    assertEquals(IdentitySettings.NONE, IdentitySettings.fromConf(new JsonObject()));
  }

  @Test
  void anIssuersGroupsMapToRoles() {
    IssuerSettings s = with(issuer()).issuers().get(0);
    assertEquals(List.of("RS256", "ES256", "EdDSA"), s.algorithms());
    assertEquals(List.of("admin", "approver", "operator", "viewer"), s.rolesOf(List.of("ops", "sre", "unknown")));
    assertEquals(List.of("viewer"), s.rolesOf(List.of()));
  }

  @Test
  void aMisconfiguredIssuerIsRefusedNamingTheKey() {
    assertRefused(issuer().put("issuer", "http://sso.example.com"), "auth.issuers[0].issuer");
    assertRefused(issuer().put("issuer", "https://sso.example.com?x=1"), "auth.issuers[0].issuer");
    assertRefused(issuer().put("audience", new JsonArray()), "auth.issuers[0].audience");
    assertRefused(issuer().put("algorithms", new JsonArray().add("RS256").add("HS256")), "never none or HS*");
    assertRefused(issuer().put("algorithms", "none"), "auth.issuers[0].algorithms");
    assertRefused(issuer().put("roles", new JsonObject().put("ops", "root")), "auth.issuers[0].roles.ops");
    assertTrue(with(issuer().put("issuer", "http://127.0.0.1:9000")).issuers().size() == 1, "http on loopback (tests)");
  }

  @Test
  void theDashboardSignsInAtAnIssuerOnlyWhenItNamesAClient() {
    assertEquals(null, with(issuer()).issuers().get(0).dashboard(), "no dashboard block: no sign-in button");
    DashboardClient d = with(issuer().put("dashboard", new JsonObject().put("clientId", "fleetbus")
      .put("scopes", new JsonArray().add("groups")))).issuers().get(0).dashboard();
    assertEquals(new DashboardClient("fleetbus", "sso.example.com", List.of("openid", "groups"), null), d,
      "named after the issuer's host; openid always asked (the ID token carries the nonce)");
    assertRefused(issuer().put("dashboard", new JsonObject()), "auth.issuers[0].dashboard.clientId");
    assertRefused(issuer().put("dashboard", "fleetbus"), "auth.issuers[0].dashboard must be an object");
    assertRefused(issuer().put("dashboard", new JsonObject().put("clientId", "fleetbus").put("resource", "fleet")),
      "auth.issuers[0].dashboard.resource");
  }

  static void assertRefused(JsonObject issuer, String names) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> with(issuer));
    assertTrue(e.getMessage().contains(names), e.getMessage());
  }
}
