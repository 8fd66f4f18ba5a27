package io.fleetbus.hub.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetbus.it.TestFleet;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dashboard's sign-in through a real OpenID Provider (clients/idp.mjs: panva's oidc-provider), in Debian's
 * Chromium (dashboard-tests/login.test.mjs): a hub whose auth.issuers[0].dashboard names the test issuer, and node n1.
 * Alice (fleet-admins) clicks "Sign in with Test IdP", goes through the issuer's login and consent pages (the hub does
 * code + PKCE S256 with state and nonce), sees the fleet with n1 online, and revokes a subject and a token id on the
 * Revocations page (listed with her as revoker); bob (fleet-viewers) signs in as a viewer and has no Revocations page;
 * carol (marketing, mapped to no role) is refused and the page says why. No hub address ever holds a token or code
 * besides the callback's. Screenshots land in hub-verticles/target/dashboard-screenshots/login-*.png.
 */
@Timeout(300)
@Tag("cluster")
class DashboardLoginBrowserTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path TESTS = Path.of("..", "dashboard-tests").toAbsolutePath().normalize();
  private static final Path CLIENTS = Path.of("..", "clients").toAbsolutePath().normalize();

  @Test
  void peopleSignInThroughTheIssuerAndAnAdminRevokes() throws Exception {
    assumeTrue(Files.isExecutable(CHROMIUM), "no " + CHROMIUM + ": apt-get install -y chromium (.ci/run does)");
    assumeTrue(Files.isDirectory(TESTS.resolve("node_modules/playwright-core")),
      "no " + TESTS.resolve("node_modules") + ": run npm ci in dashboard-tests (.ci/run does)");
    assumeTrue(Files.isDirectory(CLIENTS.resolve("node_modules/oidc-provider")),
      "no clients/node_modules/oidc-provider: run npm ci in clients/ (.ci/run does)");
    Path shots = Path.of("target", "dashboard-screenshots").toAbsolutePath();
    try (TestFleet fleet = new TestFleet(500)) {
      int idpPort = TestFleet.freePort();
      String hubUrl = "http://127.0.0.1:" + fleet.httpPort;
      String resource = hubUrl + "/mcp";
      FleetProcess idp = fleet.closing(FleetProcess.start("idp", List.of("node", "idp.mjs"), Map.of("IDP_PORT",
        Integer.toString(idpPort), "IDP_DASHBOARD_REDIRECT", hubUrl + "/login/callback"), CLIENTS, fleet.dir.resolve("idp.log")));
      idp.awaitLine("idp ready", Duration.ofSeconds(30));
      fleet.hubConf(new JsonObject().put("auth", new JsonObject().put("issuers", new JsonArray()
        .add(DashboardLoginTest.issuer("http://127.0.0.1:" + idpPort, resource)))));
      FleetProcess hub = fleet.startHub();
      fleet.startNode("n1", "unprivileged");
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);

      ProcessBuilder pb = new ProcessBuilder("node", TESTS.resolve("login.test.mjs").toString())
        .directory(TESTS.toFile()).redirectErrorStream(true);
      pb.environment().put("HUB_URL", hubUrl);
      pb.environment().put("SCREENSHOTS", shots.toString());
      Process browser = pb.start();
      try {
        String out = new String(browser.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        System.out.println(out);
        assertTrue(browser.waitFor(60, TimeUnit.SECONDS), "the browser script ends");
        assertEquals(0, browser.exitValue(), out);
        assertTrue(out.contains("STEP done"), out);
      } finally {
        browser.destroyForcibly();
      }
      for (String shot : List.of("login-0-sign-in", "login-1-alice-nodes", "login-2-revocations", "login-3-bob-viewer",
        "login-4-carol-refused")) {
        assertTrue(Files.size(shots.resolve(shot + ".png")) > 10_000, shot + ".png was saved");
      }
    }
  }
}
