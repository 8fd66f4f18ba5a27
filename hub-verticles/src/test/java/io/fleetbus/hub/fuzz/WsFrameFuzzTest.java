package io.fleetbus.hub.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fuzzed messages on {@code /api/v1/ws} of an in-process hub: one WebSocket message per input line
 * ({@code bin:} makes a binary one; a first line {@code @header:admin|viewer|junk} authenticates the
 * upgrade instead). Every answer must be JSON and every error a 4xx; afterwards the socket still answers
 * a ping (or was closed with the policy code), and no handler let an exception escape.
 */
@Tag("fuzz")
class WsFrameFuzzTest {
  private static final String PROBE = "{\"type\":\"ping\",\"id\":\"fuzz-probe\"}";
  @RegisterExtension
  static final InProcessHub hub = InProcessHub.perClass();

  @FuzzTest(maxDuration = "30s")
  void framesAreAnsweredWith4xxAndTheSocketSurvives(byte[] input) throws Exception {
    String text = new String(input, StandardCharsets.UTF_8);
    String[] lines = text.split("\n", 17);
    int first = 0;
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(hub.httpPort)
      .setURI("/api/v1/ws")
      .setAllowOriginHeader(false);
    if (lines[0].startsWith("@header:")) {
      // the client refuses to send control characters in a header at all: that is not the hub's input
      String who = lines[0].substring(8).replaceAll("[\\x00-\\x1f\\x7f]", "");
      options.addHeader("Authorization", "Bearer " + hub.withTokens(who.equals("admin") ? "$ADMIN"
        : who.equals("viewer") ? "$VIEWER" : who));
      first = 1;
    }
    BlockingQueue<Object> received = new LinkedBlockingQueue<>();
    WebSocket socket;
    try {
      socket = hub.webSocketClient().connect(options).map(s -> {
        s.textMessageHandler(received::add);
        s.binaryMessageHandler(b -> received.add(new AssertionError("binary frame from the hub: " + b)));
        s.closeHandler(v -> received.add(new Closed(s.closeStatusCode(), s.closeReason())));
        return s;
      }).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UpgradeRejectedException r) {
        assertEquals(401, r.getStatus(), "upgrade refused with " + r.getStatus() + " for " + lines[0]);
        hub.assertNoUnhandled(text);
        return;
      }
      throw e;
    }
    try {
      for (int i = first; i < Math.min(lines.length, 16); i++) {
        Future<Void> sent = lines[i].startsWith("bin:")
          ? socket.writeBinaryMessage(Buffer.buffer(lines[i].substring(4)))
          : socket.writeTextMessage(hub.withTokens(lines[i]));
        sent.toCompletionStage().toCompletableFuture().exceptionally(err -> null).get(10, TimeUnit.SECONDS);
      }
      socket.writeTextMessage(PROBE);
      awaitProbe(received, text);
    } finally {
      socket.close().toCompletionStage().toCompletableFuture().exceptionally(err -> null).get(10, TimeUnit.SECONDS);
    }
    hub.assertNoUnhandled(text);
  }

  /** Checks every answer until the probe's; a close must carry the policy code. */
  private static void awaitProbe(BlockingQueue<Object> received, String input) throws InterruptedException {
    while (true) {
      Object next = received.poll(10, TimeUnit.SECONDS);
      if (next == null) {
        fail("the socket neither answered the probe nor closed within 10 s; input: " + input);
      }
      if (next instanceof AssertionError e) {
        throw e;
      }
      if (next instanceof Closed c) {
        assertEquals((short) 1008, c.code(), "closed with " + c.code() + " " + c.reason());
        return;
      }
      JsonObject msg = InProcessHub.answer((String) next, input);
      if ("error".equals(msg.getString("type"))) {
        int code = msg.getInteger("code");
        assertTrue(code >= 400 && code < 500, "error " + code + " for bad input: " + msg.encode() + "; input: " + input);
      }
      if ("fuzz-probe".equals(msg.getValue("id"))) {
        String type = msg.getString("type");
        assertTrue("pong".equals(type) || "error".equals(type) && msg.getInteger("code") == 401, msg.encode());
        return;
      }
    }
  }

  private record Closed(Short code, String reason) {
  }
}
