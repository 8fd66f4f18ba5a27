package io.fleetbus.hub.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.fuzz.InProcessHub;
import io.fleetbus.hub.settings.IdentitySettings;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MCP authorization's discovery (revision 2025-11-25, RFC 9728): the hub publishes protected-resource metadata for
 * /mcp and for itself naming the issuers it trusts, and every 401 from /mcp carries
 * {@code WWW-Authenticate: Bearer resource_metadata="…"} pointing at it — before this, the metadata answered 404 and a
 * chat client that connects only through OAuth had nowhere to go.
 */
@Timeout(60)
class McpAuthorizationTest {
  static final String ISSUER = "https://idp.example.com/realms/ops";
  @RegisterExtension
  static final InProcessHub hub = InProcessHub.perClass(new JsonObject().put("auth", new JsonObject()
    .put("issuers", new JsonArray().add(new JsonObject().put("issuer", ISSUER).put("audience", "https://fleet/mcp")))));
  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  static HttpResponse<String> send(HttpRequest.Builder req) throws Exception {
    return HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
  }

  String base() {
    return "http://127.0.0.1:" + hub.httpPort;
  }

  @Test
  void theMetadataNamesTheResourceAndTheTrustedIssuers() throws Exception {
    HttpResponse<String> mcp = send(HttpRequest.newBuilder(URI.create(base() + "/.well-known/oauth-protected-resource/mcp")));
    assertEquals(200, mcp.statusCode(), mcp.body());
    JsonObject doc = new JsonObject(mcp.body());
    assertEquals(base() + "/mcp", doc.getString("resource"), "the resource is the URL of the MCP endpoint");
    assertEquals(new JsonArray().add(ISSUER), doc.getJsonArray("authorization_servers"));
    assertEquals(new JsonArray().add("header"), doc.getJsonArray("bearer_methods_supported"));
    JsonObject root = new JsonObject(send(HttpRequest.newBuilder(URI.create(base() + "/.well-known/oauth-protected-resource")))
      .body());
    assertEquals(base(), root.getString("resource"), "the root document describes the hub (RFC 9728 section 3.3)");
  }

  @Test
  void a401FromMcpPointsAtTheMetadata() throws Exception {
    String init = new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize")
      .put("params", new JsonObject().put("protocolVersion", "2025-11-25")).encode();
    HttpResponse<String> none = send(HttpRequest.newBuilder(URI.create(base() + "/mcp")).header("content-type",
      "application/json").POST(HttpRequest.BodyPublishers.ofString(init)));
    assertEquals(401, none.statusCode());
    String challenge = none.headers().firstValue("WWW-Authenticate").orElseThrow();
    assertTrue(challenge.startsWith("Bearer "), challenge);
    assertTrue(challenge.contains("resource_metadata=\"" + base() + "/.well-known/oauth-protected-resource/mcp\""), challenge);
    assertFalse(challenge.contains("error="), "no token sent, no error code (RFC 6750 section 3.1): " + challenge);

    HttpResponse<String> bad = send(HttpRequest.newBuilder(URI.create(base() + "/mcp")).header("content-type",
      "application/json").header("Authorization", "Bearer not.a.token").POST(HttpRequest.BodyPublishers.ofString(init)));
    assertEquals(401, bad.statusCode());
    assertTrue(bad.headers().firstValue("WWW-Authenticate").orElseThrow().contains("error=\"invalid_token\""));
    assertEquals(200, send(HttpRequest.newBuilder(URI.create(base() + "/mcp")).header("content-type", "application/json")
      .header("Accept", "application/json, text/event-stream").header("Authorization", "Bearer " + hub.adminToken)
      .POST(HttpRequest.BodyPublishers.ofString(init))).statusCode(), "the hub's own tokens keep working");
  }

  @Test
  void aConfiguredPublicUrlIsTheResourceBehindAProxy() throws Exception {
    IdentitySettings identity = IdentitySettings.fromConf(new JsonObject().put("auth", new JsonObject()
      .put("resource", "https://fleet.example.com/").put("issuers", new JsonArray().add(new JsonObject()
        .put("issuer", ISSUER).put("audience", "https://fleet.example.com/mcp")))));
    Vertx vertx = Vertx.vertx();
    try {
      Router router = Router.router(vertx);
      ResourceMetadata metadata = new ResourceMetadata(identity);
      metadata.mount(vertx, router, null);
      router.get("/challenge").handler(ctx -> ctx.end(metadata.challenge(ctx, false)));
      int port = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").toCompletionStage()
        .toCompletableFuture().get(10, TimeUnit.SECONDS).actualPort();
      JsonObject doc = new JsonObject(send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
        + "/.well-known/oauth-protected-resource/mcp"))).body());
      assertEquals("https://fleet.example.com/mcp", doc.getString("resource"));
      assertEquals("Bearer realm=\"fleetbus\", resource_metadata=\"https://fleet.example.com/.well-known/oauth-protected-resource/mcp\"",
        send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/challenge"))).body());
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}
