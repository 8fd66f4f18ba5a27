package io.fleetbus.hub.mcp;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/** Where the answer to one client request goes: a plain JSON body, or an SSE stream that can carry more first. */
interface McpReply {

  /** A notification tied to the request (progress); dropped when the answer is plain JSON. */
  void notify(JsonObject notification);

  /** A server→client request tied to this one (elicitation); the client's response completes the future. */
  Future<JsonObject> ask(String method, JsonObject params);

  /** The JSON-RPC response; ends the reply. */
  void respond(JsonObject response);

  /** Ends the reply without a response (the client cancelled the request). */
  void abandon();

  boolean canAsk();
}
