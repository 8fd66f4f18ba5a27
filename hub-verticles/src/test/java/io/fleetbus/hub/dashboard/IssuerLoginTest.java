package io.fleetbus.hub.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.settings.IdentitySettings;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * What the hub takes from a code exchange: vertx-auth-oauth2 leaves the ID token out when it does not verify and never
 * compares the nonce, so a sign-in without a verified ID token, or with one of another sign-in (replayed), is refused.
 */
class IssuerLoginTest {
  private static final Vertx VERTX = Vertx.vertx();
  private static final IssuerLogin LOGIN = new IssuerLogin(VERTX, IdentitySettings.fromConf(new JsonObject().put("auth",
    new JsonObject().put("issuers", new JsonArray().add(new JsonObject().put("issuer", "https://sso.example.com")
      .put("audience", "https://fleet.example.com/mcp").put("roles", new JsonObject().put("*", "viewer"))
      .put("dashboard", new JsonObject().put("clientId", "fleetbus")))))).issuers().get(0));

  @AfterAll
  static void close() {
    VERTX.close();
  }

  private static User exchanged(JsonObject idToken) {
    User user = User.create(new JsonObject().put("access_token", "the-access-token"));
    if (idToken != null) {
      user.attributes().put("idToken", idToken);
    }
    return user;
  }

  @Test
  void theVerifiedIdTokenOfThisSignInGivesTheAccessToken() {
    Future<String> token = LOGIN.accessToken(exchanged(new JsonObject().put("nonce", "n-1")), "n-1");
    assertEquals("the-access-token", token.result());
  }

  @Test
  void anIdTokenThatDidNotVerifyOrOfAnotherSignInIsRefused() {
    Future<String> none = LOGIN.accessToken(exchanged(null), "n-1");
    assertTrue(none.failed() && none.cause().getMessage().contains("audience 'fleetbus'"), String.valueOf(none.cause()));
    Future<String> other = LOGIN.accessToken(exchanged(new JsonObject().put("nonce", "n-2")), "n-1");
    assertTrue(other.failed() && other.cause().getMessage().contains("another nonce"), String.valueOf(other.cause()));
    Future<String> missing = LOGIN.accessToken(exchanged(new JsonObject()), "n-1");
    assertTrue(missing.failed(), "an ID token without a nonce");
  }
}
