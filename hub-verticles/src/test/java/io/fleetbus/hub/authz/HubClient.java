package io.fleetbus.hub.authz;

import io.fleetbus.hub.fuzz.InProcessHub;
import io.vertx.core.Future;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** REST, MCP and WebSocket as a user of an in-process hub sees them (the tests' side of the wire). */
final class HubClient {
  record Reply(int status, String body) {
    JsonObject json() {
      return body.isBlank() ? new JsonObject() : new JsonObject(body);
    }
  }

  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(Duration.ofSeconds(10)).build();
  private final InProcessHub hub;

  HubClient(InProcessHub hub) {
    this.hub = hub;
  }

  Reply rest(String token, String method, String path, String body) throws Exception {
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + hub.httpPort + path))
      .timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
      .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      req.header("Authorization", "Bearer " + token);
    }
    HttpResponse<String> r = HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.body());
  }

  /** One MCP request on a new session (initialize first); {@code method} null answers the initialize itself. */
  Reply mcp(String token, String method, JsonObject params) throws Exception {
    HttpRequest.Builder init = mcpRequest(token, new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize")
      .put("params", new JsonObject().put("protocolVersion", "2025-06-18").put("capabilities", new JsonObject())
        .put("clientInfo", new JsonObject().put("name", "authz-test").put("version", "1"))));
    HttpResponse<String> r = HTTP.send(init.build(), HttpResponse.BodyHandlers.ofString());
    if (method == null || r.statusCode() != 200) {
      return new Reply(r.statusCode(), r.body());
    }
    String session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HttpRequest.Builder call = mcpRequest(token, new JsonObject().put("jsonrpc", "2.0").put("id", 2).put("method", method)
      .put("params", params)).header("Mcp-Session-Id", session);
    HttpResponse<String> answer = HTTP.send(call.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(answer.statusCode(), answer.body());
  }

  private HttpRequest.Builder mcpRequest(String token, JsonObject msg) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + hub.httpPort + "/mcp"))
      .timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
      .header("Accept", "application/json, text/event-stream").POST(HttpRequest.BodyPublishers.ofString(msg.encode()));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  /** A WebSocket on /api/v1/ws whose every text frame (as JSON) lands in a queue. */
  Socket socket() throws Exception {
    Socket s = new Socket();
    WebSocket ws = await(hub.webSocketClient().connect(new WebSocketConnectOptions().setHost("127.0.0.1")
      .setPort(hub.httpPort).setURI("/api/v1/ws").setAllowOriginHeader(false)));
    ws.textMessageHandler(t -> {
      s.seen.add(t);
      s.frames.add(new JsonObject(t));
    });
    ws.closeHandler(v -> s.frames.add(new JsonObject().put("type", "__closed").put("status", ws.closeStatusCode())));
    s.ws = ws;
    return s;
  }

  static final class Socket {
    final LinkedBlockingQueue<JsonObject> frames = new LinkedBlockingQueue<>();
    final List<String> seen = new CopyOnWriteArrayList<>();
    WebSocket ws;

    void send(JsonObject msg) throws Exception {
      await(ws.writeTextMessage(msg.encode()));
    }

    /** The next frame of {@code type} (frames of other types before it are skipped). */
    JsonObject next(String type) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (true) {
        JsonObject f = frames.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (f == null) {
          throw new AssertionError("no '" + type + "' frame within 20 s; seen " + seen);
        }
        if (type.equals(f.getString("type"))) {
          return f;
        }
      }
    }

    void close() {
      ws.close();
    }
  }

  static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
