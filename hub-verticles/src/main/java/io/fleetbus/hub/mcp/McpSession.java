package io.fleetbus.hub.mcp;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * One MCP session ({@code Mcp-Session-Id}): who opened it, the negotiated version, what the client can
 * do, its tool calls in flight and the server's own requests waiting for the client. Event-loop confined.
 */
final class McpSession {

  /** A server→client request waiting for the client's response. */
  record Pending(String id, Future<JsonObject> answer) {
  }

  private final String id = UUID.randomUUID().toString();
  private final String subject;
  /** The token that opened the session (sub, jti, iat): a revocation covering it ends the session. */
  private final JsonObject token;
  private final String protocolVersion;
  private final boolean elicitation;
  private final Map<String, Promise<JsonObject>> serverRequests = new HashMap<>();
  private final Map<String, Runnable> cancellers = new HashMap<>();
  private long nextRequest;
  private long lastSeen = System.currentTimeMillis();
  private HttpServerResponse stream;

  McpSession(String subject, JsonObject token, String protocolVersion, boolean elicitation) {
    this.subject = subject;
    this.token = token;
    this.protocolVersion = protocolVersion;
    this.elicitation = elicitation;
  }

  String id() {
    return id;
  }

  String subject() {
    return subject;
  }

  JsonObject token() {
    return token;
  }

  String protocolVersion() {
    return protocolVersion;
  }

  /** The session speaks a protocol with tasks (2025-11-25): tools/call may ask for one, tasks/* are answered. */
  boolean tasks() {
    return !"2025-06-18".equals(protocolVersion);
  }

  /** The client declared the elicitation capability (form mode) in initialize. */
  boolean canElicit() {
    return elicitation;
  }

  void touch() {
    lastSeen = System.currentTimeMillis();
  }

  boolean idleSince(long cutoff) {
    return lastSeen < cutoff && (stream == null || stream.closed());
  }

  Pending newServerRequest() {
    String rid = "fleetbus-" + (++nextRequest);
    Promise<JsonObject> p = Promise.promise();
    serverRequests.put(rid, p);
    return new Pending(rid, p.future());
  }

  /** The client answered one of our requests; false when no such request is waiting. */
  boolean answer(JsonObject response) {
    Promise<JsonObject> p = serverRequests.remove(String.valueOf(response.getValue("id")));
    if (p == null) {
      return false;
    }
    JsonObject error = response.getJsonObject("error");
    if (error != null) {
      p.tryFail(new McpError(error.getInteger("code", JsonRpc.INTERNAL_ERROR), error.getString("message", "error")));
    } else {
      p.tryComplete(response.getJsonObject("result", new JsonObject()));
    }
    return true;
  }

  /** Remembers how to cancel a request in flight ({@code notifications/cancelled} names it by its id). */
  void inFlight(Object requestId, Runnable canceller) {
    cancellers.put(String.valueOf(requestId), canceller);
  }

  void done(Object requestId) {
    cancellers.remove(String.valueOf(requestId));
  }

  boolean cancel(Object requestId) {
    Runnable c = cancellers.remove(String.valueOf(requestId));
    if (c != null) {
      c.run();
    }
    return c != null;
  }

  /** The GET stream for messages not tied to a request; a newer one replaces an older one. */
  void stream(HttpServerResponse response) {
    if (stream != null && !stream.ended() && !stream.closed()) {
      stream.end();
    }
    stream = response;
  }

  void close() {
    serverRequests.values().forEach(p -> p.tryFail(new McpError(JsonRpc.INTERNAL_ERROR, "session ended")));
    serverRequests.clear();
    cancellers.clear();
    if (stream != null && !stream.ended() && !stream.closed()) {
      stream.end();
    }
  }
}
