package io.fleetbus.hub.mcp;

import io.vertx.core.Future;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;

/** A request answered with one {@code application/json} body. */
final class JsonReply implements McpReply {
  private final HttpServerResponse response;
  private final McpSession session;

  JsonReply(HttpServerResponse response, McpSession session) {
    this.response = response;
    this.session = session;
  }

  @Override
  public void notify(JsonObject notification) {
    // a plain JSON answer has nowhere to put notifications
  }

  @Override
  public Future<JsonObject> ask(String method, JsonObject params) {
    return Future.failedFuture(new IllegalStateException("a JSON reply cannot carry server requests"));
  }

  @Override
  public boolean canAsk() {
    return false;
  }

  @Override
  public void respond(JsonObject message) {
    if (response.ended() || response.closed()) {
      return;
    }
    if (session != null) {
      response.putHeader(McpEndpoint.SESSION_HEADER, session.id());
    }
    response.setStatusCode(200).putHeader("Content-Type", "application/json").end(message.encode());
  }

  @Override
  public void abandon() {
    if (!response.ended() && !response.closed()) {
      response.setStatusCode(202).end();
    }
  }
}
