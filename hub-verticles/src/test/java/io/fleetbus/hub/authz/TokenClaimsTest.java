package io.fleetbus.hub.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.auth.TokenRules;
import io.fleetbus.hub.authz.HubClient.Reply;
import io.fleetbus.hub.fuzz.InProcessHub;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * User tokens as RFC 7519 / RFC 8725 ask, on every frontend of a real (in-process) hub: each token below is signed
 * with the hub's own key — only its claims or header are wrong — and each is refused 401 saying which rule failed.
 */
@Timeout(120)
class TokenClaimsTest {
  @RegisterExtension
  static final InProcessHub hub = InProcessHub.perClass();
  static final HubClient client = new HubClient(hub);
  static TokenForge forge;

  @BeforeAll
  static void forgeWithTheHubsKey() {
    forge = TokenForge.of(hub);
  }

  static long now() {
    return System.currentTimeMillis() / 1000;
  }

  static JsonObject claims() {
    return new JsonObject().put("sub", "tess").put("roles", new JsonArray().add("viewer")).put("iss", "fleetbus")
      .put("iat", now()).put("exp", now() + 600);
  }

  /** REST, WebSocket (auth message) and MCP (initialize) all refuse {@code token} 401 with {@code why}. */
  static void refusedEverywhere(String token, String why) throws Exception {
    Reply rest = client.rest(token, "GET", "/api/v1/nodes", null);
    assertEquals(401, rest.status(), rest.body());
    assertTrue(rest.json().getJsonObject("error").getString("message").contains(why), rest.body());
    Reply mcp = client.mcp(token, null, null);
    assertEquals(401, mcp.status(), mcp.body());
    assertTrue(mcp.body().contains(why), mcp.body());
    HubClient.Socket ws = client.socket();
    ws.send(new JsonObject().put("type", "auth").put("token", token));
    JsonObject error = ws.next("error");
    assertEquals(401, error.getInteger("code"));
    assertTrue(error.getString("message").contains(why), error.encode());
    ws.next("__closed");
  }

  @Test
  void aWellFormedTokenIsAccepted() throws Exception {
    String good = forge.claims(claims());
    assertEquals(200, client.rest(good, "GET", "/api/v1/nodes", null).status());
    assertEquals(200, client.mcp(good, null, null).status());
    HubClient.Socket ws = client.socket();
    ws.send(new JsonObject().put("type", "auth").put("token", good));
    assertEquals("tess", ws.next("authenticated").getString("subject"));
    ws.close();
    // clocks a little apart: nbf / iat up to 60 s ahead still pass
    assertEquals(200, client.rest(forge.claims(claims().put("nbf", now() + 30).put("iat", now() + 30)), "GET",
      "/api/v1/nodes", null).status());
  }

  @Test
  void anotherIssuerIsRefused() throws Exception {
    refusedEverywhere(forge.claims(claims().put("iss", "evil")), "issuer 'evil' is not this hub's ('fleetbus')");
  }

  @Test
  void aTokenWithoutIssuerIsRefused() throws Exception {
    JsonObject c = claims();
    c.remove("iss");
    refusedEverywhere(forge.claims(c), "no 'iss'");
  }

  @Test
  void aTokenThatNeverExpiresIsRefused() throws Exception {
    JsonObject c = claims();
    c.remove("exp");
    refusedEverywhere(forge.claims(c), "no 'exp'");
  }

  @Test
  void aTokenLivingLongerThanTheLimitIsRefused() throws Exception {
    refusedEverywhere(forge.claims(claims().put("exp", now() + 13 * 3600)), "longer than this hub's limit of 720 minutes");
    JsonObject noIat = claims().put("exp", now() + 30 * 24 * 3600);
    noIat.remove("iat");
    refusedEverywhere(forge.claims(noIat), "longer than this hub's limit");
  }

  @Test
  void notYetValidAndFromTheFutureSaySo() throws Exception {
    refusedEverywhere(forge.claims(claims().put("nbf", now() + 600)), "not valid before");
    refusedEverywhere(forge.claims(claims().put("iat", now() + 600).put("exp", now() + 1200)), "issued in the future");
  }

  @Test
  void anExpiredTokenSaysWhen() throws Exception {
    refusedEverywhere(forge.claims(claims().put("iat", now() - 1200).put("exp", now() - 600)), "expired at");
  }

  @Test
  void theAlgorithmIsPinned() throws Exception {
    refusedEverywhere(TokenForge.withAlg("HS256", claims()), "algorithm 'HS256' is not accepted");
    refusedEverywhere(TokenForge.withAlg("none", claims()), "algorithm 'none' is not accepted");
  }

  @Test
  void anOversizedTokenGetsAJson401() throws Exception {
    // fits the header limit: refused by the token rules
    String big = forge.claims(claims().put("pad", "x".repeat(20_000)));
    Reply r = client.rest(big, "GET", "/api/v1/nodes", null);
    assertEquals(401, r.status(), r.body());
    assertTrue(r.json().getJsonObject("error").getString("message").startsWith("token too large"), r.body());
    // past the server's header limit: refused by the decoder, still a JSON 401 saying so
    String huge = forge.claims(claims().put("pad", "x".repeat(100_000)));
    Reply h = client.rest(huge, "GET", "/api/v1/nodes", null);
    assertEquals(401, h.status(), h.body());
    assertTrue(h.json().getJsonObject("error").getString("message").startsWith("token too large"), h.body());
  }

  @Test
  void anOversizedFirstWebSocketMessageGetsAnErrorBeforeTheClose() throws Exception {
    HubClient.Socket ws = client.socket();
    ws.send(new JsonObject().put("type", "auth").put("token", "x".repeat(70 * 1024)));
    JsonObject error = ws.next("error");
    assertEquals(413, error.getInteger("code"));
    assertTrue(error.getString("message").startsWith("first message too large"), error.encode());
    assertEquals(1009, ws.next("__closed").getInteger("status"));
  }

  @Test
  void theAudienceIsCheckedWhenConfigured() {
    TokenRules rules = TokenRules.fromConf(new JsonObject().put("auth", new JsonObject().put("audience", "fleet-prod")
      .put("maxTokenLifetimeMinutes", 60)));
    long nowMs = System.currentTimeMillis();
    String none = TokenForge.withAlg("ES256", claims().put("exp", now() + 600));
    FleetException missing = assertThrows(FleetException.class, () -> rules.check(none, nowMs));
    assertTrue(missing.getMessage().contains("audience is missing"), missing.getMessage());
    String other = TokenForge.withAlg("ES256", claims().put("aud", new JsonArray().add("fleet-dev")));
    assertTrue(assertThrows(FleetException.class, () -> rules.check(other, nowMs)).getMessage().contains("[fleet-dev] is not"));
    assertEquals("tess", rules.check(TokenForge.withAlg("ES256", claims().put("aud", "fleet-prod")), nowMs).getString("sub"));
    assertEquals(Duration.ofMinutes(60), rules.maxLifetime());
    assertTrue(assertThrows(FleetException.class, () -> rules.check(TokenForge.withAlg("ES256", claims().put("aud", "fleet-prod")
      .put("exp", now() + 2 * 3600)), nowMs)).getMessage().contains("limit of 60 minutes"));
  }

  @Test
  void theTokenCliRefusesAnOverlongLifetime() {
    assertThrows(IllegalArgumentException.class, () -> io.fleetbus.hub.auth.HubKeys.mint(hub.auth, "x", List.of("viewer"),
      13 * 60));
  }
}
