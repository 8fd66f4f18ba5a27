package io.fleetbus.bench.ws;

import io.fleetbus.bench.load.CallPath;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Tool calls pipelined on one socket of the hub's WebSocket API ({@code /api/v1/ws}): each call is a
 * {@code call} message with its own id, done when the {@code result} with that id arrives and its data
 * is the expected one. Open with {@link #connect}; each answer completes on the context its call was made on.
 */
public final class WebSocketPath implements CallPath, AutoCloseable {
  private final WebSocketClient client;
  private final WebSocket socket;
  private final JsonObject callTemplate;
  private final Predicate<JsonObject> expected;
  /** Calls waiting for their result, each with the context it was made on (answers arrive on the socket's). */
  private final Map<String, Waiting> waiting = new ConcurrentHashMap<>();
  private final AtomicLong nextId = new AtomicLong();

  private record Waiting(Promise<Void> done, Context context) {
    void complete(Throwable failure) {
      context.runOnContext(v -> {
        if (failure == null) {
          done.complete();
        } else {
          done.fail(failure);
        }
      });
    }
  }

  private WebSocketPath(WebSocketClient client, WebSocket socket, JsonObject callTemplate, Predicate<JsonObject> expected) {
    this.client = client;
    this.socket = socket;
    this.callTemplate = callTemplate;
    this.expected = expected;
    socket.textMessageHandler(this::answered);
    socket.closeHandler(v -> failAll("the hub closed the socket: " + socket.closeStatusCode() + " " + socket.closeReason()));
  }

  public static Future<WebSocketPath> connect(Vertx vertx, int port, String token, String nodeId, String tool,
                                              JsonObject args, Predicate<JsonObject> expected) {
    WebSocketClient client = vertx.createWebSocketClient();
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
      .setURI("/api/v1/ws").addHeader("Authorization", "Bearer " + token);
    // the tool streams no output: like any client that wants only results, ask for no chunks
    JsonObject template = new JsonObject().put("type", "call").put("node", nodeId).put("tool", tool).put("args", args)
      .put("stream", false);
    return client.connect(options).map(ws -> new WebSocketPath(client, ws, template, expected));
  }

  @Override
  public Future<Void> call() {
    String id = Long.toString(nextId.incrementAndGet());
    Waiting call = new Waiting(Promise.promise(), Vertx.currentContext());
    waiting.put(id, call);
    socket.writeTextMessage(callTemplate.copy().put("id", id).encode()).onFailure(err -> {
      if (waiting.remove(id) != null) {
        call.complete(err);
      }
    });
    return call.done().future();
  }

  private void answered(String text) {
    JsonObject msg = new JsonObject(text);
    Waiting call = waiting.remove(msg.getString("id", ""));
    if (call == null) {
      return;
    }
    boolean ok = "result".equals(msg.getString("type")) && "ok".equals(msg.getString("status"))
      && expected.test(msg.getJsonObject("data", new JsonObject()));
    call.complete(ok ? null : new IllegalStateException("WebSocket call " + msg.getString("id") + " did not succeed: " + text));
  }

  private void failAll(String why) {
    for (String id : List.copyOf(waiting.keySet())) {
      Waiting call = waiting.remove(id);
      if (call != null) {
        call.complete(new IllegalStateException(why));
      }
    }
  }

  @Override
  public void close() {
    socket.close();
    client.close();
  }
}
