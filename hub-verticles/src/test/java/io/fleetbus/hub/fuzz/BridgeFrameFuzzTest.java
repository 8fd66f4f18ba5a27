package io.fleetbus.hub.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fuzzed event-bus bridge frames, one per input line, through both bridges of an in-process hub: the
 * TCP bridge (length-prefixed; a {@code raw:} line goes out without its length and may break the
 * framing) and the SockJS bridge's raw WebSocket. {@link io.fleetbus.hub.bridge.BridgeGuard} and the
 * call verticle behind it must answer every failure with a 4xx (or a bridge-level refusal), then still
 * answer a probe call (401: it carries no token), and no handler may let an exception escape.
 */
@Tag("fuzz")
class BridgeFrameFuzzTest {
  private static final String PROBE = "{\"type\":\"send\",\"address\":\"fleet.bridge.call\",\"replyAddress\":\"fuzz-probe\","
    + "\"body\":{}}";
  @RegisterExtension
  static final InProcessHub hub = InProcessHub.perClass();

  @FuzzTest(maxDuration = "30s")
  void framesAreRefusedWith4xxAndTheBridgesSurvive(byte[] input) throws Exception {
    String text = new String(input, StandardCharsets.UTF_8);
    String[] lines = text.split("\n", 17);
    tcp(lines, text);
    sockJs(lines, text);
    hub.assertNoUnhandled(text);
  }

  private static void tcp(String[] lines, String input) throws IOException {
    boolean raw = false;
    try (Socket socket = new Socket("127.0.0.1", hub.tcpPort)) {
      socket.setSoTimeout(10_000);
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      DataInputStream in = new DataInputStream(socket.getInputStream());
      for (int i = 0; i < Math.min(lines.length, 16); i++) {
        if (lines[i].startsWith("raw:")) {
          raw = true;
          out.write(lines[i].substring(4).getBytes(StandardCharsets.UTF_8));
        } else {
          frame(out, hub.withTokens(lines[i]));
        }
      }
      frame(out, PROBE);
      socket.setSoTimeout(100);
      long deadline = System.currentTimeMillis() + (raw ? 2_000 : 10_000);
      while (true) {
        byte[] bytes;
        try {
          bytes = new byte[in.readInt()];
          in.readFully(bytes);
        } catch (EOFException e) {
          return;
        } catch (SocketTimeoutException e) {
          // a broken length prefix may swallow the probe; a frame the library itself chokes on stalls the connection
          if (hub.dropTcpBridgeLibraryFailures() || System.currentTimeMillis() > deadline) {
            assertTrue(raw || System.currentTimeMillis() <= deadline,
              "the TCP bridge neither answered the probe nor closed; input: " + input);
            return;
          }
          continue;
        }
        if (check(new String(bytes, StandardCharsets.UTF_8), input)) {
          return;
        }
      }
    } catch (java.net.SocketException e) {
      // the bridge closed the connection on a frame it could not read: fine for this one client
    }
  }

  private static void frame(DataOutputStream out, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
    out.flush();
  }

  private static void sockJs(String[] lines, String input) throws Exception {
    BlockingQueue<Object> received = new LinkedBlockingQueue<>();
    WebSocket socket = hub.webSocketClient().connect(new WebSocketConnectOptions().setHost("127.0.0.1")
        .setPort(hub.httpPort).setURI("/eventbus/websocket").setAllowOriginHeader(false))
      .map(s -> {
        s.textMessageHandler(received::add);
        s.binaryMessageHandler(b -> received.add(b.toString(StandardCharsets.UTF_8)));
        s.closeHandler(v -> received.add(Boolean.FALSE));
        return s;
      }).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    try {
      for (int i = 0; i < Math.min(lines.length, 16); i++) {
        if (!lines[i].startsWith("raw:")) {
          socket.writeTextMessage(hub.withTokens(lines[i])).toCompletionStage().toCompletableFuture()
            .exceptionally(err -> null).get(10, TimeUnit.SECONDS);
        }
      }
      socket.writeTextMessage(PROBE);
      while (true) {
        Object next = received.poll(10, TimeUnit.SECONDS);
        assertTrue(next != null, "the SockJS bridge neither answered the probe nor closed; input: " + input);
        if (next instanceof Boolean || check((String) next, input)) {
          return;
        }
      }
    } finally {
      socket.close().toCompletionStage().toCompletableFuture().exceptionally(err -> null).get(10, TimeUnit.SECONDS);
    }
  }

  /** Checks one frame from a bridge; true when it is the probe's answer. */
  private static boolean check(String json, String input) {
    JsonObject frame = InProcessHub.answer(json, input);
    Integer code = frame.getValue("failureCode") instanceof Number n ? n.intValue() : null;
    if (code != null) {
      assertTrue(code >= 400 && code < 500, "failure " + code + " for bad input: " + json + "; input: " + input);
    }
    if ("fuzz-probe".equals(frame.getString("address"))) {
      assertEquals(401, code, "the probe carries no token: " + json);
      return true;
    }
    return false;
  }
}
