package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.fleetbus.shared.trust.Digests;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Users against a real hub: why a token is refused (401), which role is missing (403), and the token CLI. */
@Timeout(180)
@Tag("cluster")
class UserAuthTest {
  static TestFleet fleet;
  static Path keys;
  static FleetProcess hub;

  @BeforeAll
  static void startHub() {
    fleet = new TestFleet(1000);
    fleet.hubConf(new JsonObject().put("enrollment", new JsonObject().put("localNodeId", "local")));
    hub = fleet.startHub();
    keys = fleet.dir.resolve("hub").resolve("keys");
  }

  @AfterAll
  static void stop() {
    fleet.close();
  }

  /**
   * The hub's data: its folder owner-only, its SQLite files owner-only; the embedded default's one-time token for the
   * local node owner-only, and gone once that node has enrolled with it.
   */
  @Test
  void dataIsOwnerOnlyAndTheUsedLocalTokenIsRemoved() throws Exception {
    Path data = fleet.dir.resolve("hub");
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(data)));
    for (String f : new String[] {"fleetbus.db", "fleetbus.db-wal"}) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve(f))), f);
    }
    Path tokenFile = data.resolve("local-node-enrollment-token");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile)));
    String localToken = Files.readString(tokenFile).strip();
    int mark = hub.mark();
    FleetProcess node = fleet.startNode("local", "unprivileged", new JsonObject(),
      java.util.Map.of("FLEETBUS_ENROLLMENT_TOKEN", localToken));
    hub.awaitLine(TestFleet.onlineLine("local"), mark, TestFleet.START);
    assertFalse(Files.exists(tokenFile), "a used one-time token is not left on disk");
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(fleet.dir.resolve("node-local"))));
    node.stop();
  }

  private static Response as(String token, String method, String path) {
    HttpRequest.Builder req = HttpRequest.newBuilder(fleet.uri(path));
    req = "POST".equals(method) ? req.POST(HttpRequest.BodyPublishers.ofString("{}")) : req.GET();
    return fleet.send(req, token);
  }

  private static String message(Response r) {
    return r.body().getJsonObject("error").getString("message");
  }

  /** Runs the token CLI as scripts/token.sh does: its own JVM, the token on stdout. */
  private static String[] tokenCli(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(), "-cp",
      System.getProperty("java.class.path"), "io.fleetbus.hub.auth.TokenCli"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    return new String[] {Integer.toString(p.exitValue()), out, err};
  }

  @Test
  void everyBadTokenIs401AndSaysWhy() throws Exception {
    assertTrue(message(as(null, "GET", "/api/v1/nodes")).contains("missing bearer token"));
    assertTrue(message(as("not-a-jwt", "GET", "/api/v1/nodes")).contains("malformed"));
    assertTrue(message(as("a.b.c", "GET", "/api/v1/nodes")).contains("malformed"));

    Vertx vertx = Vertx.vertx();
    try {
      JWTAuth hubKey = JWTAuth.create(vertx, new JWTAuthOptions().addPubSecKey(new PubSecKeyOptions().setAlgorithm("ES256")
        .setBuffer(Files.readString(keys.resolve("jwt-es256-private.pem")))));
      String expired = hubKey.generateToken(new JsonObject().put("sub", "old").put("roles", new JsonArray().add("admin"))
        .put("exp", System.currentTimeMillis() / 1000 - 60), new JWTOptions().setAlgorithm("ES256"));
      Response r = as(expired, "GET", "/api/v1/nodes");
      assertEquals(401, r.status());
      assertTrue(message(r).contains("expired at"), message(r));

      KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
      gen.initialize(new ECGenParameterSpec("secp256r1"));
      String otherPem = "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder().encodeToString(gen.generateKeyPair()
        .getPrivate().getEncoded()) + "\n-----END PRIVATE KEY-----\n";
      JWTAuth otherHub = JWTAuth.create(vertx, new JWTAuthOptions().addPubSecKey(new PubSecKeyOptions()
        .setAlgorithm("ES256").setBuffer(otherPem)));
      String foreign = otherHub.generateToken(new JsonObject().put("sub", "eve").put("roles", new JsonArray().add("admin")),
        new JWTOptions().setAlgorithm("ES256").setIssuer("fleetbus").setExpiresInMinutes(5));
      assertTrue(message(as(foreign, "GET", "/api/v1/nodes")).contains("signature does not verify"));
    } finally {
      vertx.close();
    }

    // a viewer's token with its claims rewritten to admin keeps the viewer's signature
    String viewer = tokenCli("--role", "viewer", "--sub", "vera", "--ttl", "1h", "--keys", keys.toString())[1];
    String[] parts = viewer.split("\\.");
    JsonObject claims = new JsonObject(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
    String promoted = parts[0] + "." + Digests.base64Url(claims.put("roles", new JsonArray().add("admin")).encode()
      .getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
    Response tampered = as(promoted, "GET", "/api/v1/nodes");
    assertEquals(401, tampered.status());
    assertTrue(message(tampered).contains("signature does not verify"));
    assertFalse(tampered.body().encode().contains(parts[2]), "the token is never echoed");
  }

  @Test
  void cliTokensCarryRolesAnd403NamesTheRoleNeeded() throws Exception {
    String[] minted = tokenCli("--role", "viewer", "--sub", "vera", "--ttl", "8h", "--keys", keys.toString());
    assertEquals("0", minted[0], minted[2]);
    String viewer = minted[1];
    JsonArray tools = as(viewer, "GET", "/api/v1/tools").body().getJsonArray("tools");
    assertTrue(tools.stream().map(JsonObject.class::cast).allMatch(t -> t.getInteger("tier") == 1), tools.encode());

    Response tier3 = as(viewer, "POST", "/api/v1/nodes/n1/tools/run_command");
    assertEquals(403, tier3.status());
    assertTrue(message(tier3).contains("needs the role 'admin'"), message(tier3));
    Response enroll = as(viewer, "POST", "/api/v1/enrollments");
    assertEquals(403, enroll.status());
    assertTrue(message(enroll).contains("needs the role 'admin'") && message(enroll).contains("[viewer]"), message(enroll));
    // a viewer reads only their own audit entries, and may not check the whole chain
    Response audit = as(viewer, "GET", "/api/v1/audit");
    assertEquals(200, audit.status());
    assertTrue(audit.body().getJsonArray("records").stream().map(JsonObject.class::cast)
      .allMatch(r -> "vera".equals(r.getString("principal"))), audit.body().encode());
    Response chain = as(viewer, "GET", "/api/v1/audit/verify");
    assertEquals(403, chain.status());
    assertTrue(message(chain).contains("'admin' or 'approver'"), message(chain));

    String approver = tokenCli("--role", "approver", "--sub", "ann", "--ttl", "30m", "--keys", keys.toString())[1];
    assertEquals(200, as(approver, "GET", "/api/v1/audit").status());
    Response approverCalls = as(approver, "POST", "/api/v1/nodes/n1/tools/get_system_info");
    assertEquals(403, approverCalls.status(), "approving is not calling");
    assertTrue(message(approverCalls).contains("'viewer'"), message(approverCalls));

    String[] bad = tokenCli("--role", "root", "--sub", "x", "--keys", keys.toString());
    assertEquals("2", bad[0]);
    assertTrue(bad[2].contains("--role must be one or more of"), bad[2]);
    assertEquals("2", tokenCli("--role", "admin", "--sub", "x", "--keys", fleet.dir.resolve("nowhere").toString())[0]);
  }

  @Test
  void keysAndDevTokensAreOwnerOnly() throws Exception {
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keys)));
    for (String f : List.of("jwt-es256-private.pem", "directive-ed25519-private.pem", "store-aes256.key")) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keys.resolve(f))), f);
    }
    for (String f : List.of("dev-token", "dev-approver-token")) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(fleet.dir.resolve("hub").resolve(f))));
    }
  }
}
