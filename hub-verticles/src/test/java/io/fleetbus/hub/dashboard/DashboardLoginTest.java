package io.fleetbus.hub.dashboard;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetbus.hub.fuzz.InProcessHub;
import io.fleetbus.it.TestFleet;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dashboard's sign-in at a real OpenID Provider (clients/idp.mjs, as in OidcLoginTest), spoken as browsers speak it
 * by clients/dashboard-login.test.mjs against an in-process hub: the authorization request carries PKCE S256, state,
 * nonce and the resource; a fleet-admin gets a token worth her mapped roles, handed over once; a person whose groups
 * map to no role is refused and told why; a replayed redirect, a sign-in planted in another browser (login CSRF) and
 * an issuer's refusal sign nobody in. With the fault switch loginUnbound the planted sign-in succeeds.
 */
@Tag("cluster")
@Timeout(180)
class DashboardLoginTest {
  static final Path CLIENTS = Path.of("..", "clients").toAbsolutePath().normalize();
  static final int IDP_PORT = TestFleet.freePort();
  static final int HUB_PORT = TestFleet.freePort();
  static final String ISSUER = "http://127.0.0.1:" + IDP_PORT;
  static final String RESOURCE = "https://fleet.test/mcp";
  @RegisterExtension
  static final InProcessHub hub = InProcessHub.perClass(new JsonObject().put("http", new JsonObject().put("port", HUB_PORT))
    .put("auth", new JsonObject().put("issuers", new JsonArray().add(issuer()))));
  static FleetProcess idp;

  /** The test issuer as a hub's conf names it, with the dashboard's client (also used by DashboardLoginBrowserTest). */
  static JsonObject issuer(String issuer, String resource) {
    return new JsonObject().put("issuer", issuer).put("audience", new JsonArray().add(resource))
      .put("rolesClaim", "groups").put("roles", new JsonObject()
        .put("fleet-admins", new JsonArray().add("admin").add("approver")).put("fleet-viewers", "viewer"))
      .put("dashboard", new JsonObject().put("clientId", "fleetbus-dashboard").put("name", "Test IdP")
        .put("scopes", new JsonArray().add("openid").add("fleet")).put("resource", resource));
  }

  private static JsonObject issuer() {
    return issuer(ISSUER, RESOURCE);
  }

  /** The test issuer (idp.mjs), its dashboard client redirecting to {@code hubUrl}'s /login/callback. */
  static FleetProcess startIdp(int port, String hubUrl, Path log) {
    FleetProcess p = FleetProcess.start("idp", List.of("node", "idp.mjs"), Map.of("IDP_PORT", Integer.toString(port),
      "IDP_DASHBOARD_REDIRECT", hubUrl + "/login/callback"), CLIENTS, log);
    p.awaitLine("idp ready", Duration.ofSeconds(30));
    return p;
  }

  @BeforeAll
  static void startTheIssuer() throws Exception {
    assumeTrue(Files.isDirectory(CLIENTS.resolve("node_modules/oidc-provider")),
      "no clients/node_modules/oidc-provider: run npm ci in clients/ (.ci/run does)");
    idp = startIdp(IDP_PORT, "http://127.0.0.1:" + HUB_PORT, Files.createTempDirectory("fleetbus-idp").resolve("idp.log"));
  }

  @AfterAll
  static void stopTheIssuer() {
    if (idp != null) {
      idp.close();
    }
  }

  @Test
  void aPersonSignsInWithCodeAndPkceAndEveryOtherOutcomeSaysWhy() throws Exception {
    String out = script("checks");
    assertTrue(out.contains("dashboard-login: all checks passed"), out);
  }

  @Test
  void withTheSignInUnboundAPlantedSignInLogsTheVictimInAsTheAttacker() throws Exception {
    try (FaultSwitches.Restore off = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.LOGIN_UNBOUND))) {
      String out = script("unbound");
      assertTrue(out.contains("signed the victim in as bob"), out);
    }
  }

  private static String script(String mode) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("node", "dashboard-login.test.mjs").directory(CLIENTS.toFile())
      .redirectErrorStream(true);
    pb.environment().putAll(Map.of("HUB_URL", "http://127.0.0.1:" + hub.httpPort, "MODE", mode));
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, out);
    return out;
  }
}
