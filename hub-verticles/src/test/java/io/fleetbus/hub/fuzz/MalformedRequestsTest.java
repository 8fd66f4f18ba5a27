package io.fleetbus.hub.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Malformed input gets a 4xx that names the problem, and an oversized body does not leave the client hanging:
 * the 413 says {@code Connection: close} and the hub closes the connection, so a client still writing its
 * body fails at once instead of waiting for its own timeout.
 */
@Timeout(120)
class MalformedRequestsTest {
  @RegisterExtension
  static final InProcessHub hub = InProcessHub.perClass();
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private static HttpResponse<String> postCall(String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + hub.httpPort + "/api/v1/calls"))
      .header("Authorization", "Bearer " + hub.adminToken).timeout(Duration.ofSeconds(30))
      .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aSelectorFieldOfTheWrongTypeIs400NamingTheField() throws Exception {
    String[][] cases = {
      {"\"platform\": [\"x\"]", "'platform' must be a string, not an array"},
      {"\"platform\": 7", "'platform' must be a string, not a number"},
      {"\"labels\": \"site=lab\"", "'labels' must be an object"},
      {"\"labels\": {\"site\": 1}", "label 'site' must be a string"},
      {"\"mode\": {\"all\": true}", "'mode' must be a string, not an object"},
      {"\"minCapabilityTier\": [\"root\"]", "'minCapabilityTier' must be a string, not an array"},
      {"\"maxConcurrency\": \"4\"", "'maxConcurrency' must be a whole number, not a string"},
      {"\"maxErrors\": 1.5", "'maxErrors' must be a whole number, not a number"},
      {"\"nodes\": \"n1\"", "'nodes' must be an array of node ids"},
      {"\"lables\": {\"site\": \"lab\"}", "unknown field 'lables'"},
    };
    for (String[] c : cases) {
      HttpResponse<String> r = postCall("{\"tool\": \"get_agent_health\", \"args\": {}, " + c[0] + "}");
      assertEquals(400, r.statusCode(), c[0] + " → " + r.body());
      String message = new JsonObject(r.body()).getJsonObject("error").getString("message");
      assertTrue(message.contains(c[1]), c[0] + " → " + message);
    }
  }

  @Test
  void anOversizedBodyIsAnswered413AndTheConnectionClosed() throws Exception {
    for (int mb : new int[] {5, 50}) {
      try (Socket s = new Socket("127.0.0.1", hub.httpPort)) {
        s.setSoTimeout(10_000);
        OutputStream out = s.getOutputStream();
        long length = mb * 1024L * 1024L;
        out.write(("POST /api/v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + hub.adminToken
          + "\r\nContent-Type: application/json\r\nContent-Length: " + length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        // a client that writes its whole body before it reads: it must not hang
        CompletableFuture<String> writer = CompletableFuture.supplyAsync(() -> {
          byte[] chunk = new byte[64 * 1024];
          java.util.Arrays.fill(chunk, (byte) ' ');
          try {
            for (long sent = 0; sent < length; sent += chunk.length) {
              out.write(chunk, 0, (int) Math.min(chunk.length, length - sent));
            }
            out.flush();
            return "wrote all";
          } catch (IOException e) {
            return "stopped: " + e.getMessage();
          }
        });
        String writerEnd = writer.get(10, TimeUnit.SECONDS);
        String response = readToEnd(s.getInputStream());
        assertTrue(response.startsWith("HTTP/1.1 413"), response);
        assertTrue(response.toLowerCase().contains("connection: close"), response);
        assertTrue(response.contains("request body too large"), response);
        // readToEnd returned: the hub closed the connection (else the read times out after 10 s)
        assertTrue(writerEnd.startsWith("stopped") || writerEnd.equals("wrote all"), writerEnd);
      }
    }
  }

  @Test
  void anErrorAfterTheWholeRequestWasReadKeepsTheConnection() throws Exception {
    try (Socket s = new Socket("127.0.0.1", hub.httpPort)) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      InputStream in = s.getInputStream();
      for (String request : new String[] {
        "GET /api/v1/calls/no-such-call HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + hub.adminToken + "\r\n\r\n",
        "POST /api/v1/calls HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + hub.adminToken
          + "\r\nContent-Length: 2\r\n\r\n{}",
        "GET /api/v1/nodes HTTP/1.1\r\nHost: x\r\n\r\n"}) {
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String head = readHead(in);
        assertTrue(head.matches("(?s)HTTP/1.1 4\\d\\d.*"), head);
        assertTrue(!head.toLowerCase().contains("connection: close"), "a keep-alive client keeps its connection: " + head);
      }
    }
  }

  /** The status line and headers of one answer, and its body (by Content-Length) consumed. */
  private static String readHead(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        throw new IOException("closed after: " + head);
      }
      head.append((char) c);
    }
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)content-length: (\\d+)").matcher(head);
    if (m.find()) {
      in.readNBytes(Integer.parseInt(m.group(1)));
    }
    return head.toString();
  }

  /** Everything until the peer closes; an exception when it does not within the socket timeout. */
  private static String readToEnd(InputStream in) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    byte[] b = new byte[8192];
    try {
      for (int n; (n = in.read(b)) >= 0; ) {
        buf.write(b, 0, n);
      }
    } catch (java.net.SocketException reset) {
      // a reset after the answer: closed all the same
      if (buf.size() == 0) {
        throw reset;
      }
    }
    return buf.toString(StandardCharsets.US_ASCII);
  }
}
