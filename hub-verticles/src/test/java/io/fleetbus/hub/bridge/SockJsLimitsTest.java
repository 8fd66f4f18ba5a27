package io.fleetbus.hub.bridge;

import io.fleetbus.hub.settings.SockJsLimits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.api.OriginCheck;
import io.fleetbus.hub.api.TokenCheck;
import io.fleetbus.hub.auth.HubKeys;
import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.web.Router;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SockJS sockets ({@code /eventbus}) that have shown no valid token (issue 35): only
 * {@code frontends.sockjs.maxUnauthenticatedSockets} at once (more are told why, naming the key, and closed), and each
 * must show one within {@code frontends.sockjs.authWithinSeconds} (1 s here), however busy it keeps itself (these ping
 * as the SockJS client does, which alone keeps a socket past the bridge's own 10-s idle check). Meanwhile a scripter
 * whose register carried a valid token keeps calling. Each limit is shown off too (raised: an hour, 10,000 sockets):
 * the same sockets then stay open and are let in.
 */
class SockJsLimitsTest {
  private static final String CLOSED = "(closed)";
  private static final int SOCKETS = 6;

  @TempDir
  Path keyDir;
  private Vertx vertx;
  private JWTAuth auth;
  /** Held for the whole test: Vert.x closes a client nobody holds, and its connections (the earlier attempt's failure). */
  private WebSocketClient client;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    auth = HubKeys.loadOrCreate(keyDir).jwtAuth(vertx);
    client = vertx.createWebSocketClient();
    // the call address, answering with the caller the guard verified (or null)
    vertx.eventBus().localConsumer(Addresses.BRIDGE_CALL, m -> m.reply(new JsonObject()
      .put("caller", m.headers().get(BridgeGuard.CALLER_HEADER))));
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private int bridge(SockJsLimits limits) throws Exception {
    Router router = Router.router(vertx);
    new SockJsBridge(new TokenCheck(auth), new OriginCheck(List.of()), limits).mount(vertx, router, null);
    return await(vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")).actualPort();
  }

  /** A SockJS socket (raw WebSocket transport) and what it hears; {@link #CLOSED} once the hub closed it. */
  private record Sock(WebSocket ws, BlockingQueue<String> heard) {
    void send(JsonObject frame) {
      ws.writeTextMessage(frame.encode());
    }

    /** The next frame heard within {@code seconds}, or null. */
    String next(int seconds) throws InterruptedException {
      return heard.poll(seconds, TimeUnit.SECONDS);
    }
  }

  private Sock open(int port) throws Exception {
    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
    // the handlers are set as the upgrade completes, on the socket's event loop: a refusal's err frame, sent at once,
    // would be lost to handlers set later from this thread
    WebSocket ws = await(client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
      .setURI(SockJsBridge.PATH + "/websocket").setAllowOriginHeader(false)).map(w -> {
        w.textMessageHandler(heard::add);
        // the bridge writes its frames as binary WebSocket messages
        w.binaryMessageHandler(b -> heard.add(b.toString(StandardCharsets.UTF_8)));
        w.closeHandler(v -> heard.add(CLOSED));
        return w;
      }));
    return new Sock(ws, heard);
  }

  /** {@code n} sockets without a token, each pinging every 200 ms (a live SockJS client's keep-alive, faster). */
  private List<Sock> openPinging(int port, int n) throws Exception {
    List<Sock> socks = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      socks.add(pinging(open(port)));
    }
    return socks;
  }

  private Sock pinging(Sock s) {
    vertx.setPeriodic(200, t -> s.ws().writeTextMessage("{\"type\":\"ping\"}").onFailure(e -> vertx.cancelTimer(t)));
    return s;
  }

  /** A scripter's socket: registers for fleet.events with alice's token. */
  private Sock scripter(int port) throws Exception {
    Sock alice = pinging(open(port));
    alice.send(new JsonObject().put("type", "register").put("address", Addresses.EVENTS).put("headers", token()));
    return alice;
  }

  private JsonObject token() {
    return new JsonObject().put("authorization", "Bearer " + HubKeys.mint(auth, "alice", List.of("viewer"), 10));
  }

  /** A call from the scripter answered with her verified name (the reply reaches her socket). */
  private void assertCalls(Sock alice) throws Exception {
    alice.send(new JsonObject().put("type", "send").put("address", Addresses.BRIDGE_CALL).put("replyAddress", "r1")
      .put("headers", token()).put("body", new JsonObject()));
    String reply = alice.next(10);
    assertTrue(reply != null && reply.contains("\\\"sub\\\":\\\"alice\\\""), "alice's call answered: " + reply);
  }

  @Test
  void socketsWithoutATokenAreClosedAtTheDeadlineWhileAScripterKeepsCalling() throws Exception {
    int port = bridge(new SockJsLimits(1, 64));
    Sock alice = scripter(port);
    List<Sock> silent = openPinging(port, SOCKETS);
    for (Sock s : silent) {
      String why = s.next(10);
      assertTrue(why != null && why.contains("no valid token within 1 s (frontends.sockjs.authWithinSeconds)"), why);
      assertEquals(CLOSED, s.next(5));
    }
    assertCalls(alice);
    assertCalls(alice);
  }

  @Test
  void withoutTheDeadlineTheSameSocketsStay() throws Exception {
    int port = bridge(new SockJsLimits(3600, 64));
    List<Sock> silent = openPinging(port, SOCKETS);
    // three of the 1-s deadline above, and past the bridge's own idle check were they not pinging
    assertNull(silent.get(0).next(3), "pinging sockets without a token stay open without the deadline");
    for (Sock s : silent) {
      assertNull(s.heard().peek(), "nothing said to, nor closed: " + s.heard());
    }
  }

  @Test
  void socketsBeyondTheCapAreRefusedNamingTheKeyAndAScripterStillGetsIn() throws Exception {
    int port = bridge(new SockJsLimits(30, SOCKETS - 2));
    List<Sock> socks = openPinging(port, SOCKETS);
    for (Sock refused : socks.subList(SOCKETS - 2, SOCKETS)) {
      String why = refused.next(10);
      assertTrue(why != null && why.contains((SOCKETS - 2) + " sockets have shown no valid token yet;"
        + " frontends.sockjs.maxUnauthenticatedSockets allows more"), why);
      assertEquals(CLOSED, refused.next(5));
    }
    assertNull(socks.get(0).heard().peek(), "the first ones are let in");
    // one leaves: its place is free again, and a scripter takes it and calls
    socks.get(0).ws().close();
    assertEquals(CLOSED, socks.get(0).next(5));
    Sock alice = scripter(port);
    if (alice.next(1) != null) {
      // refused: the hub had not handled the close yet when the scripter came (once at most)
      alice = scripter(port);
    }
    assertCalls(alice);
  }

  @Test
  void withoutTheCapTheSameSocketsAreLetIn() throws Exception {
    int port = bridge(new SockJsLimits(30, 10_000));
    List<Sock> socks = openPinging(port, SOCKETS);
    assertNull(socks.get(SOCKETS - 1).next(2), "the last socket is let in without the cap");
    for (Sock s : socks) {
      assertNull(s.heard().peek(), "nothing said to, nor closed: " + s.heard());
    }
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
