package io.fleetbus.hub.ws;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.api.OriginCheck;
import io.fleetbus.hub.api.TokenCheck;
import io.fleetbus.hub.auth.HubKeys;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.web.Router;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each WebSocket without a header token may hold a whole frame (up to 1 MiB) before its auth message is read, so only
 * {@code frontends.ws.maxUnauthenticatedSockets} may wait for it at once (issue 35): one more is answered 429 naming
 * the key; a socket that authenticates gives its place back. With a larger cap (the limit off) the same one is let in.
 */
class WsUnauthenticatedSocketsTest {
  @TempDir
  Path keyDir;
  private Vertx vertx;
  private JWTAuth auth;
  private WebSocketClient client;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    auth = HubKeys.loadOrCreate(keyDir).jwtAuth(vertx);
    client = vertx.createWebSocketClient();
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private int api(int maxUnauthenticated) throws Exception {
    Router router = Router.router(vertx);
    new WebSocketApi(new TokenCheck(auth), new OriginCheck(List.of()),
      new WsLimits(1 << 20, 64, 10_000, maxUnauthenticated)).mount(vertx, router, null);
    return await(vertx.createHttpServer(new HttpServerOptions().setMaxWebSocketFrameSize(1 << 20))
      .requestHandler(router).listen(0, "127.0.0.1")).actualPort();
  }

  private Future<WebSocket> open(int port) {
    return client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI(WebSocketApi.PATH)
      .setAllowOriginHeader(false));
  }

  /** The status the upgrade was refused with, or 101 when it was not. */
  private int status(int port) throws Exception {
    try {
      await(open(port));
      return 101;
    } catch (ExecutionException e) {
      return e.getCause() instanceof UpgradeRejectedException r ? r.getStatus() : -1;
    }
  }

  @Test
  void socketsBeyondTheCapAreRefusedUntilOneAuthenticates() throws Exception {
    int capped = api(2);
    WebSocket first = await(open(capped));
    await(open(capped));
    assertEquals(429, status(capped), "a third socket waiting for its auth message");
    Promise<JsonObject> authenticated = Promise.promise();
    first.textMessageHandler(text -> authenticated.tryComplete(new JsonObject(text)));
    first.writeTextMessage(new JsonObject().put("type", "auth")
      .put("token", HubKeys.mint(auth, "alice", List.of("viewer"), 10)).encode());
    assertEquals("authenticated", await(authenticated.future()).getString("type"));
    assertEquals(101, status(capped), "the authenticated socket gave its place back");
  }

  @Test
  void withALargerCapTheSameSocketIsLetIn() throws Exception {
    int uncapped = api(3);
    await(open(uncapped));
    await(open(uncapped));
    assertEquals(101, status(uncapped));
  }

  @Test
  void theRefusalNamesTheKey() throws Exception {
    int capped = api(0);
    String body = await(vertx.createHttpClient().request(io.vertx.core.http.HttpMethod.GET, capped, "127.0.0.1",
      WebSocketApi.PATH).compose(r -> r.send()).compose(r -> r.body())).toString();
    assertTrue(body.contains("frontends.ws.maxUnauthenticatedSockets allows more"), body);
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
