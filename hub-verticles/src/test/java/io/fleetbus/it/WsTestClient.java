package io.fleetbus.it;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A WebSocket client for tests: every JSON message it receives is queued; {@link #await} takes the next match. */
final class WsTestClient implements AutoCloseable {
  private final WebSocket ws;
  /** Held for the socket's life: Vert.x 5 closes an unreachable client, and its connections with it. */
  private final WebSocketClient client;
  private final LinkedBlockingQueue<JsonObject> inbox = new LinkedBlockingQueue<>();
  private final List<JsonObject> skipped = new ArrayList<>();
  final CompletableFuture<Short> closed = new CompletableFuture<>();

  private WsTestClient(WebSocketClient client, WebSocket ws) {
    this.client = client;
    this.ws = ws;
    ws.textMessageHandler(t -> inbox.add(new JsonObject(t)));
    ws.closeHandler(v -> closed.complete(ws.closeStatusCode()));
  }

  static WsTestClient connect(Vertx vertx, TestFleet fleet, String bearer, int receiveBufferBytes) {
    return connect(vertx, fleet.httpPort, bearer, receiveBufferBytes);
  }

  /** As above, to the hub serving HTTP on {@code port} (a peer hub). */
  static WsTestClient connect(Vertx vertx, int port, String bearer, int receiveBufferBytes) {
    WebSocketClientOptions options = new WebSocketClientOptions();
    if (receiveBufferBytes > 0) {
      options.setReceiveBufferSize(receiveBufferBytes);
    }
    WebSocketConnectOptions connect = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
      .setURI("/api/v1/ws");
    if (bearer != null) {
      connect.addHeader("Authorization", "Bearer " + bearer);
    }
    try {
      WebSocketClient client = vertx.createWebSocketClient(options);
      // handlers are set in the completion callback, on the event loop, so no frame arrives before them
      return client.connect(connect).map(ws -> new WsTestClient(client, ws)).toCompletionStage().toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("websocket connect failed: " + e.getMessage(), e);
    }
  }

  WsTestClient send(JsonObject msg) {
    ws.writeTextMessage(msg.encode());
    return this;
  }

  WebSocket socket() {
    return ws;
  }

  /** The first message matching {@code match}; messages passed over stay for later awaits. */
  JsonObject await(Predicate<JsonObject> match, Duration timeout) {
    for (int i = 0; i < skipped.size(); i++) {
      if (match.test(skipped.get(i))) {
        return skipped.remove(i);
      }
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        JsonObject m = inbox.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (m == null) {
          throw new AssertionError("no matching websocket message within " + timeout.toMillis() + " ms; got " + skipped);
        }
        if (match.test(m)) {
          return m;
        }
        skipped.add(m);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  JsonObject await(String type, Object id, Duration timeout) {
    return await(m -> type.equals(m.getString("type")) && (id == null || id.equals(m.getValue("id"))), timeout);
  }

  List<JsonObject> skipped() {
    return skipped;
  }

  @Override
  public void close() {
    ws.close();
    client.close();
  }
}
