package io.fleetbus.hub.authz;

import io.fleetbus.hub.fuzz.InProcessHub;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * One user listening to a hub's live feeds, as a client of one frontend: the WebSocket API (topics approvals and
 * nodes), the SockJS bridge or the TCP bridge ({@code fleet.events}). Every frame it gets is kept as text.
 */
final class FeedListener implements AutoCloseable {
  enum Kind { WEBSOCKET, SOCKJS, TCP }

  final Kind kind;
  final String role;
  final List<String> heard = new CopyOnWriteArrayList<>();
  private AutoCloseable closer;

  private FeedListener(Kind kind, String role) {
    this.kind = kind;
    this.role = role;
  }

  static FeedListener open(Kind kind, InProcessHub hub, HubClient client, String role, String token) throws Exception {
    FeedListener l = new FeedListener(kind, role);
    switch (kind) {
      case WEBSOCKET -> l.webSocket(client, token);
      case SOCKJS -> l.sockJs(hub, token);
      case TCP -> l.tcp(hub, token);
    }
    return l;
  }

  private void webSocket(HubClient client, String token) throws Exception {
    HubClient.Socket s = client.socket();
    s.send(new JsonObject().put("type", "auth").put("token", token));
    s.next("authenticated");
    for (String topic : List.of("approvals", "nodes")) {
      s.send(new JsonObject().put("type", "subscribe").put("topic", topic));
      s.next("subscribed");
    }
    s.seen.forEach(this::record);
    s.ws.textMessageHandler(this::record);
    closer = s::close;
  }

  private void sockJs(InProcessHub hub, String token) throws Exception {
    WebSocket ws = HubClient.await(hub.webSocketClient().connect(new WebSocketConnectOptions().setHost("127.0.0.1")
      .setPort(hub.httpPort).setURI("/eventbus/websocket").setAllowOriginHeader(false)));
    ws.textMessageHandler(this::record);
    ws.binaryMessageHandler(b -> record(b.toString(StandardCharsets.UTF_8)));
    HubClient.await(ws.writeTextMessage(new JsonObject().put("type", "register").put("address", "fleet.events")
      .put("headers", new JsonObject().put("Authorization", "Bearer " + token)).encode()));
    closer = ws::close;
  }

  private void tcp(InProcessHub hub, String token) throws IOException {
    Socket socket = new Socket("127.0.0.1", hub.tcpPort);
    DataOutputStream out = new DataOutputStream(socket.getOutputStream());
    byte[] frame = new JsonObject().put("type", "register").put("address", "fleet.events")
      .put("headers", new JsonObject().put("authorization", "Bearer " + token)).encode().getBytes(StandardCharsets.UTF_8);
    out.writeInt(frame.length);
    out.write(frame);
    out.flush();
    Thread reader = new Thread(() -> {
      try {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        while (true) {
          byte[] bytes = new byte[in.readInt()];
          in.readFully(bytes);
          record(new String(bytes, StandardCharsets.UTF_8));
        }
      } catch (IOException e) {
        // closed
      }
    }, "tcp-feed-" + role);
    reader.setDaemon(true);
    reader.start();
    closer = socket::close;
  }

  private synchronized void record(String frame) {
    heard.add(frame);
    notifyAll();
  }

  boolean heard(String text) {
    return heard.stream().anyMatch(f -> f.contains(text));
  }

  /** Waits until a frame holding {@code text} arrived (woken by each frame); false after {@code ms}. */
  synchronized boolean await(String text, long ms) throws InterruptedException {
    long deadline = System.currentTimeMillis() + ms;
    while (!heard(text)) {
      long left = deadline - System.currentTimeMillis();
      if (left <= 0) {
        return false;
      }
      wait(left);
    }
    return true;
  }

  @Override
  public void close() throws Exception {
    closer.close();
  }

  @Override
  public String toString() {
    return kind + " " + role;
  }
}
