package io.fleetbus.hub.mcp;

import io.vertx.core.Future;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;

/** A request answered as a {@code text/event-stream}: notifications and server requests first, the response last. */
final class SseReply implements McpReply {
  private final HttpServerResponse response;
  private final McpSession session;
  private boolean ended;

  SseReply(HttpServerResponse response, McpSession session) {
    this.response = response;
    this.session = session;
    open(response, session);
  }

  /** Sends the stream's headers at once so the client starts reading before the first event. */
  static void open(HttpServerResponse response, McpSession session) {
    response.setStatusCode(200).setChunked(true)
      .putHeader("Content-Type", "text/event-stream")
      .putHeader("Cache-Control", "no-cache, no-transform")
      .putHeader("X-Accel-Buffering", "no");
    if (session != null) {
      response.putHeader(McpEndpoint.SESSION_HEADER, session.id());
    }
    response.writeHead();
  }

  static void event(HttpServerResponse response, JsonObject message) {
    if (!response.ended() && !response.closed()) {
      response.write("event: message\ndata: " + message.encode() + "\n\n");
    }
  }

  @Override
  public void notify(JsonObject notification) {
    if (!ended) {
      event(response, notification);
    }
  }

  @Override
  public Future<JsonObject> ask(String method, JsonObject params) {
    McpSession.Pending pending = session.newServerRequest();
    event(response, JsonRpc.request(pending.id(), method, params));
    return pending.answer();
  }

  @Override
  public boolean canAsk() {
    return !ended && !response.closed();
  }

  @Override
  public void respond(JsonObject message) {
    if (!ended) {
      event(response, message);
      abandon();
    }
  }

  @Override
  public void abandon() {
    if (!ended) {
      ended = true;
      if (!response.ended() && !response.closed()) {
        response.end();
      }
    }
  }
}
