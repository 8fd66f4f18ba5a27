package io.fleetbus.hub.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.auth.HubKeys;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.jwt.JWTAuth;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a TCP bridge client without a valid token can make the hub hold (issue 35): before a token of its verifies, a
 * frame may be 64 KiB (it was 1 MiB, as after), a connection must authenticate within
 * {@code frontends.tcpBridge.authWithinSeconds}, and only so many unauthenticated connections may be open. Each limit
 * is shown off too (raised to the old values): the same client is then read, kept, let in.
 */
class TcpBridgeLimitsTest {
  private static final int ONE_MIB = 1 << 20;

  @TempDir
  Path keyDir;
  private Vertx vertx;
  private JWTAuth auth;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    auth = HubKeys.loadOrCreate(keyDir).jwtAuth(vertx);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private int bridge(TcpBridgeLimits limits) throws Exception {
    TcpBridgeVerticle bridge = new TcpBridgeVerticle(auth, "127.0.0.1", 0, limits);
    vertx.deployVerticle(bridge).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return bridge.actualPort();
  }

  private static Socket connect(int port) throws IOException {
    return connect(port, "127.0.0.1");
  }

  /** A connection from the local address {@code from} (any of 127/8 is this machine's). */
  private static Socket connect(int port, String from) throws IOException {
    Socket socket = new Socket(InetAddress.getByName("127.0.0.1"), port, InetAddress.getByName(from), 0);
    socket.setSoTimeout(10_000);
    return socket;
  }

  private static void assertServed(Socket socket) throws IOException {
    frame(socket, "{\"type\":\"ping\"}");
    assertEquals("pong", read(socket).getString("type"));
  }

  private static void frame(Socket socket, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    DataOutputStream out = new DataOutputStream(socket.getOutputStream());
    out.writeInt(bytes.length);
    out.write(bytes);
    out.flush();
  }

  private static JsonObject read(Socket socket) throws IOException {
    DataInputStream in = new DataInputStream(socket.getInputStream());
    byte[] bytes = new byte[in.readInt()];
    in.readFully(bytes);
    return new JsonObject(new String(bytes, StandardCharsets.UTF_8));
  }

  /** True once the hub closed the socket (nothing more to read). */
  private static boolean closedByHub(Socket socket) {
    return assertThrows(IOException.class, () -> read(socket)) instanceof EOFException;
  }

  /**
   * A frame of 1 MiB of spaces (not JSON) announced, and with {@code body} sent: what the hub says to it (the body is
   * not sent to a hub that refuses at the length: a write into a closed socket would race its answer).
   */
  private static JsonObject megabyteFrame(Socket socket, boolean body) throws IOException {
    DataOutputStream out = new DataOutputStream(socket.getOutputStream());
    out.writeInt(ONE_MIB);
    if (body) {
      out.write(" ".repeat(ONE_MIB).getBytes(StandardCharsets.US_ASCII));
    }
    out.flush();
    return read(socket);
  }

  @Test
  void aLargeFrameBeforeAValidTokenClosesTheConnectionWithTheOldCapItIsRead() throws Exception {
    try (Socket capped = connect(bridge(TcpBridgeLimits.DEFAULT));
         Socket old = connect(bridge(new TcpBridgeLimits(ONE_MIB, 30, 256)))) {
      String refusal = megabyteFrame(capped, false).getString("message");
      assertTrue(refusal.contains("frame of " + ONE_MIB + " bytes: at most 65536 before a valid token"
        + " (frontends.tcpBridge.maxUnauthenticatedFrameBytes)"), refusal);
      assertTrue(closedByHub(capped));
      // the old cap: the whole megabyte was buffered and parsed, and the connection stays
      assertEquals("invalid_json", megabyteFrame(old, true).getString("message"));
      frame(old, "{\"type\":\"ping\"}");
      assertEquals("pong", read(old).getString("type"));
    }
  }

  /**
   * A silent connection is closed at the deadline (1 s here); one whose register carried a valid token stays, and may
   * send frames over the unauthenticated cap from then on.
   */
  @Test
  void withoutAValidTokenAConnectionIsClosedAtTheDeadlineWithOneItStaysAndMaySendMore() throws Exception {
    int port = bridge(new TcpBridgeLimits(64 << 10, 1, 256));
    try (Socket silent = connect(port); Socket alice = connect(port)) {
      String token = HubKeys.mint(auth, "alice", List.of("viewer"), 10);
      frame(alice, new JsonObject().put("type", "register").put("address", "fleet.events")
        .put("headers", new JsonObject().put("authorization", "Bearer " + token)).encode());
      String why = read(silent).getString("message");
      assertTrue(why.contains("no valid token within 1 s (frontends.tcpBridge.authWithinSeconds)"), why);
      assertTrue(closedByHub(silent));
      frame(alice, new JsonObject().put("type", "ping").put("pad", " ".repeat(200 << 10)).encode());
      assertEquals("pong", read(alice).getString("type"), "an authenticated connection stays and sends 200 KiB");
    }
  }

  @Test
  void unauthenticatedConnectionsBeyondTheCapAreClosedUnderTheOldLimitTheyStay() throws Exception {
    int capped = bridge(new TcpBridgeLimits(64 << 10, 30, 2));
    int uncapped = bridge(new TcpBridgeLimits(64 << 10, 30, 3));
    try (Socket a = connect(capped); Socket b = connect(capped); Socket c = connect(capped);
         Socket d = connect(uncapped); Socket e = connect(uncapped); Socket f = connect(uncapped)) {
      String why = read(c).getString("message");
      assertTrue(why.contains("2 connections have no valid token yet (frontends.tcpBridge.maxUnauthenticatedConnections"),
        why);
      assertTrue(closedByHub(c));
      for (Socket open : List.of(a, b, f)) {
        frame(open, "{\"type\":\"ping\"}");
        assertEquals("pong", read(open).getString("type"));
      }
    }
  }

  /**
   * One address may hold only so many unauthenticated connections (2 here, 256 in all): its third is closed naming
   * the key, while another address still gets in, and a connection that authenticates gives its place back. With the
   * cap at 3 (the limit off for this client) the same third connection is served.
   */
  @Test
  void unauthenticatedConnectionsFromOneAddressBeyondItsCapAreClosedOthersGetIn() throws Exception {
    int capped = bridge(new TcpBridgeLimits(64 << 10, 30, 256, 2));
    int uncapped = bridge(new TcpBridgeLimits(64 << 10, 30, 256, 3));
    try (Socket a = connect(capped, "127.0.0.2"); Socket b = connect(capped, "127.0.0.2");
         Socket c = connect(capped, "127.0.0.2"); Socket other = connect(capped, "127.0.0.3");
         Socket d = connect(uncapped, "127.0.0.2"); Socket e = connect(uncapped, "127.0.0.2");
         Socket f = connect(uncapped, "127.0.0.2")) {
      String why = read(c).getString("message");
      assertTrue(why.contains("2 connections from 127.0.0.2 have no valid token yet"
        + " (frontends.tcpBridge.maxUnauthenticatedConnectionsPerAddress allows more)"), why);
      assertTrue(closedByHub(c));
      for (Socket open : List.of(a, b, other, f)) {
        assertServed(open);
      }
      // a call with a valid token (nobody serves the call address here: its answer, an error, comes once the token
      // verified, so the place is free by then)
      frame(a, new JsonObject().put("type", "send").put("address", "fleet.bridge.call").put("replyAddress", "r")
        .put("body", new JsonObject()).put("headers", new JsonObject().put("authorization", "Bearer "
          + HubKeys.mint(auth, "alice", List.of("viewer"), 10))).encode());
      assertEquals("r", read(a).getString("address"));
      try (Socket again = connect(capped, "127.0.0.2")) {
        assertServed(again);
      }
    }
  }

  /**
   * A client without a token that sends frames the hub answers (here: not JSON, each answered with an error) and never
   * reads the answers is closed once the hub's queue to it is full, instead of growing it: its writes then fail.
   */
  @Test
  void anUnauthenticatedClientThatDoesNotReadItsAnswersIsClosed() throws Exception {
    int port = bridge(TcpBridgeLimits.DEFAULT);
    try (Socket reader = new Socket()) {
      reader.setReceiveBufferSize(4096);
      reader.connect(new java.net.InetSocketAddress("127.0.0.1", port));
      DataOutputStream out = new DataOutputStream(reader.getOutputStream());
      byte[] batch = new byte[5 * 10_000];
      for (int i = 0; i < batch.length; i += 5) {
        batch[i + 3] = 1;
        batch[i + 4] = 'x';
      }
      long sent = 0;
      IOException cut = null;
      while (cut == null && sent < (64L << 20)) {
        try {
          out.write(batch);
          sent += batch.length;
        } catch (IOException e) {
          cut = e;
        }
      }
      assertTrue(cut != null, "still open after " + (sent >> 20) + " MiB of frames whose answers it never read");
    }
  }
}
