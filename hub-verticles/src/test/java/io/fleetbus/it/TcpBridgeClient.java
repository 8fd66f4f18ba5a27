package io.fleetbus.it;

import io.vertx.core.json.JsonObject;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** The TCP event-bus bridge's framing, by hand: a 4-byte big-endian length, then that many bytes of UTF-8 JSON. */
final class TcpBridgeClient implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;

  TcpBridgeClient(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(20_000);
    in = new DataInputStream(socket.getInputStream());
    out = new DataOutputStream(socket.getOutputStream());
  }

  void write(JsonObject frame) throws IOException {
    byte[] bytes = frame.encode().getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
    out.flush();
  }

  JsonObject read() throws IOException {
    byte[] bytes = new byte[in.readInt()];
    in.readFully(bytes);
    return new JsonObject(new String(bytes, StandardCharsets.UTF_8));
  }

  /** Reads frames until one is addressed to {@code address} (or is an error without an address). */
  JsonObject readFor(String address) throws IOException {
    while (true) {
      JsonObject f = read();
      if (address.equals(f.getString("address")) || ("err".equals(f.getString("type")) && f.getString("address") == null)) {
        return f;
      }
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
