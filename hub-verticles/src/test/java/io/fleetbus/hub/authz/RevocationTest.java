package io.fleetbus.hub.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.auth.RevocationList;
import io.fleetbus.hub.authz.HubClient.Reply;
import io.fleetbus.hub.cli.FleetbusCli;
import io.fleetbus.hub.fuzz.InProcessHub;
import io.fleetbus.hub.revocation.RevocationVerticle;
import io.fleetbus.shared.trust.Digests;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Revoking user tokens on one (in-process) hub: a leaked token works until an admin revokes it by its id, then every
 * frontend refuses it — also where the hub had verified and cached it; a subject's revocation closes its open WebSocket
 * and MCP session and refuses its earlier tokens, not later ones; bad input is refused naming the field; the list is
 * kept in SQLite (a new verticle on the same file refuses the same tokens). The fleet-wide half (two hubs, restarts):
 * {@code io.fleetbus.it.RevocationAcrossHubsTest}.
 */
@Timeout(120)
class RevocationTest {
  @RegisterExtension
  static final InProcessHub hub = InProcessHub.perClass();
  static final HubClient client = new HubClient(hub);
  static TokenForge forge;

  @BeforeAll
  static void forgeWithTheHubsKey() {
    forge = TokenForge.of(hub);
  }

  static JsonObject claimsOf(String jwt) {
    return new JsonObject(new String(Digests.fromBase64Url(jwt.split("\\.")[1]), StandardCharsets.UTF_8));
  }

  Reply revoke(JsonObject body) throws Exception {
    return client.rest(hub.adminToken, "POST", "/api/v1/revocations", body.encode());
  }

  @Test
  void aLeakedTokenWorksUntilRevokedThenEveryFrontendRefusesIt() throws Exception {
    String leaked = hub.token("mallory", "operator");
    String sibling = hub.token("mallory", "operator");
    String jti = claimsOf(leaked).getString("jti");
    assertTrue(jti != null && !jti.isBlank(), "the hub's tokens carry an id: " + claimsOf(leaked));
    // the attack: whoever holds the token is mallory (and the API has verified and cached it)
    assertEquals(200, client.rest(leaked, "GET", "/api/v1/nodes", null).status());
    assertEquals(200, client.mcp(leaked, null, null).status());

    Reply revoked = revoke(new JsonObject().put("tokenId", jti));
    assertEquals(201, revoked.status(), revoked.body());
    assertEquals("token", revoked.json().getString("kind"));
    assertEquals("fuzz-admin", revoked.json().getString("by"));

    Reply rest = client.rest(leaked, "GET", "/api/v1/nodes", null);
    assertEquals(401, rest.status(), "a token verified and cached before is refused once revoked");
    assertTrue(rest.body().contains("revoked"), rest.body());
    Reply mcp = client.mcp(leaked, null, null);
    assertEquals(401, mcp.status(), mcp.body());
    HubClient.Socket ws = client.socket();
    ws.send(new JsonObject().put("type", "auth").put("token", leaked));
    assertTrue(ws.next("error").getString("message").contains("revoked"));
    ws.next("__closed");
    assertEquals(200, client.rest(sibling, "GET", "/api/v1/nodes", null).status(), "only that one token is revoked");

    JsonArray list = client.rest(hub.adminToken, "GET", "/api/v1/revocations", null).json().getJsonArray("revocations");
    assertTrue(list.stream().map(o -> (JsonObject) o).anyMatch(r -> jti.equals(r.getString("tokenId"))
      && r.getLong("keepUntil") > System.currentTimeMillis()), list.encode());
  }

  @Test
  void revokingASubjectClosesItsOpenSessionsAndRefusesOnlyItsEarlierTokens() throws Exception {
    String token = hub.token("sam", "operator");
    HubClient.Socket ws = client.socket();
    ws.send(new JsonObject().put("type", "auth").put("token", token));
    ws.next("authenticated");
    McpStream mcp = McpStream.open(hub.httpPort, token);

    assertEquals(201, revoke(new JsonObject().put("subject", "sam")).status());

    JsonObject closed = ws.next("__closed");
    assertEquals(1008, closed.getInteger("status"), "the open WebSocket is closed: " + closed);
    mcp.ended.get(10, TimeUnit.SECONDS);
    Reply rest = client.rest(token, "GET", "/api/v1/nodes", null);
    assertEquals(401, rest.status());
    assertTrue(rest.body().contains("every token of 'sam'"), rest.body());
    // a token sam gets afterwards (issued a few seconds later) is not covered, but the old MCP session is gone
    long later = System.currentTimeMillis() / 1000 + 5;
    String fresh = forge.claims(new JsonObject().put("sub", "sam").put("roles", new JsonArray().add("operator"))
      .put("iss", "fleetbus").put("iat", later).put("exp", later + 600));
    Reply freshReply = client.rest(fresh, "GET", "/api/v1/nodes", null);
    assertEquals(200, freshReply.status(), freshReply.body());
    assertEquals(404, mcp.ping(fresh), "the revoked session was ended");
  }

  @Test
  void aSockJsSubscriberWhoseTokenIsRevokedHearsNothingMoreAndIsClosed() throws Exception {
    String token = hub.token("sockjs-victim", "viewer");
    java.util.concurrent.BlockingQueue<String> heard = new java.util.concurrent.LinkedBlockingQueue<>();
    io.vertx.core.http.WebSocket socket = HubClient.await(hub.webSocketClient().connect(
      new io.vertx.core.http.WebSocketConnectOptions().setHost("127.0.0.1").setPort(hub.httpPort)
        .setURI("/eventbus/websocket").setAllowOriginHeader(false)).map(s -> {
          s.textMessageHandler(heard::add);
          s.binaryMessageHandler(b -> heard.add(b.toString(StandardCharsets.UTF_8)));
          s.closeHandler(v -> heard.add("__closed"));
          return s;
        }));
    socket.writeTextMessage(new JsonObject().put("type", "register").put("address", "fleet.events")
      .put("headers", new JsonObject().put("Authorization", "Bearer " + token)).encode());
    JsonObject ping = new JsonObject().put("type", "node.online").put("nodeId", "probe");
    String first = null;
    // the registration is asynchronous (token check): publish until the subscriber hears one
    for (int i = 0; i < 100 && first == null; i++) {
      hub.vertx.eventBus().publish("fleet.events", ping);
      first = heard.poll(100, TimeUnit.MILLISECONDS);
    }
    assertTrue(first != null && first.contains("probe"), "the subscriber hears events before: " + first);

    assertEquals(201, revoke(new JsonObject().put("subject", "sockjs-victim")).status());
    heard.clear();
    hub.vertx.eventBus().publish("fleet.events", ping.copy().put("nodeId", "after"));
    String next = heard.poll(10, TimeUnit.SECONDS);
    assertEquals("__closed", next, "the next event is not delivered; the socket is closed instead; frames: " + heard);
  }

  @Test
  void badRequestsNameTheFieldAndOnlyAdminsMayRevoke() throws Exception {
    assertRefused(new JsonObject(), 400, "'tokenId'");
    assertRefused(new JsonObject().put("tokenId", "a").put("subject", "b"), 400, "not both");
    assertRefused(new JsonObject().put("tokenId", ""), 400, "tokenId");
    assertRefused(new JsonObject().put("subject", 5), 400, "subject");
    assertRefused(new JsonObject().put("subject", "a").put("why", "x"), 400, "why");
    Reply notJson = client.rest(hub.adminToken, "POST", "/api/v1/revocations", "{subject");
    assertEquals(400, notJson.status(), notJson.body());
    Reply viewer = client.rest(hub.viewerToken, "POST", "/api/v1/revocations", "{\"subject\": \"fuzz-admin\"}");
    assertEquals(403, viewer.status());
    assertTrue(viewer.body().contains("'admin'"), viewer.body());
    assertEquals(403, client.rest(hub.viewerToken, "GET", "/api/v1/revocations", null).status());
    assertEquals(401, client.rest(null, "GET", "/api/v1/revocations", null).status());
  }

  private void assertRefused(JsonObject body, int status, String names) throws Exception {
    Reply r = revoke(body);
    assertEquals(status, r.status(), body + " -> " + r.body());
    assertTrue(r.json().getJsonObject("error").getString("message").contains(names), body + " -> " + r.body());
  }

  @Test
  void theCliRevokesByTheTokenItselfAndListsRevocations() throws Exception {
    String token = hub.token("cli-victim", "viewer");
    String url = "http://127.0.0.1:" + hub.httpPort;
    StringWriter out = new StringWriter();
    int code = FleetbusCli.run(new String[] {"revoke", "--url", url, "--token", hub.adminToken, "--jwt", token},
      new PrintWriter(out, true), new PrintWriter(new StringWriter(), true));
    String jti = claimsOf(token).getString("jti");
    assertEquals(0, code, out.toString());
    assertTrue(out.toString().contains("token " + jti + " revoked"), out.toString());
    assertEquals(401, client.rest(token, "GET", "/api/v1/nodes", null).status());
    StringWriter listed = new StringWriter();
    assertEquals(0, FleetbusCli.run(new String[] {"revocations", "--url", url, "--token", hub.adminToken},
      new PrintWriter(listed, true), new PrintWriter(new StringWriter(), true)));
    assertTrue(listed.toString().contains(jti), listed.toString());
    StringWriter err = new StringWriter();
    assertEquals(2, FleetbusCli.run(new String[] {"revoke", "--url", url, "--token", hub.adminToken},
      new PrintWriter(new StringWriter(), true), new PrintWriter(err, true)), "one of --token-id, --subject, --jwt");
  }

  @Test
  void revocationsAreKeptInTheHubsStoreForItsNextStart() throws Exception {
    String token = hub.token("restart-victim", "viewer");
    assertEquals(201, revoke(new JsonObject().put("tokenId", claimsOf(token).getString("jti"))).status());
    // a hub starting on the same SQLite file (here: the verticle on a Vert.x of its own, sharing nothing)
    Vertx next = Vertx.vertx();
    try {
      RevocationList list = new RevocationList();
      HubClient.await(next.deployVerticle(new RevocationVerticle(hub.dir.resolve("fleetbus.db"), list,
        Duration.ofHours(1), null)));
      assertTrue(list.revokes(claimsOf(token)), "the restarted hub refuses the token revoked before");
      assertFalse(list.revokes(claimsOf(hub.token("restart-victim", "viewer"))), "and only that one");
    } finally {
      next.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  /** An MCP session with its GET event stream open; {@link #ended} completes when the hub ends the stream. */
  record McpStream(int port, String session, CompletableFuture<HttpResponse<String>> ended) {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    static McpStream open(int port, String token) throws Exception {
      HttpResponse<String> init = HTTP.send(post(port, token, null, new JsonObject().put("jsonrpc", "2.0").put("id", 1)
        .put("method", "initialize").put("params", new JsonObject().put("protocolVersion", "2025-06-18")
          .put("capabilities", new JsonObject()).put("clientInfo", new JsonObject().put("name", "t").put("version", "1")))),
        HttpResponse.BodyHandlers.ofString());
      assertEquals(200, init.statusCode(), init.body());
      String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
      CompletableFuture<HttpResponse<String>> stream = HTTP.sendAsync(HttpRequest.newBuilder(uri(port))
        .header("Authorization", "Bearer " + token).header("Mcp-Session-Id", session)
        .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofString());
      return new McpStream(port, session, stream);
    }

    int ping(String token) throws Exception {
      return HTTP.send(post(port, token, session, new JsonObject().put("jsonrpc", "2.0").put("id", 2).put("method", "ping")),
        HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    private static HttpRequest post(int port, String token, String session, JsonObject msg) {
      HttpRequest.Builder b = HttpRequest.newBuilder(uri(port)).header("Authorization", "Bearer " + token)
        .header("content-type", "application/json").header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(msg.encode()));
      if (session != null) {
        b.header("Mcp-Session-Id", session);
      }
      return b.build();
    }

    private static URI uri(int port) {
      return URI.create("http://127.0.0.1:" + port + "/mcp");
    }
  }
}
