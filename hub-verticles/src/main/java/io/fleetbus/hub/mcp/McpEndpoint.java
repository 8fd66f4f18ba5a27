package io.fleetbus.hub.mcp;

import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.auth.Revocation;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.hub.api.Frontend;
import io.fleetbus.hub.api.OriginCheck;
import io.fleetbus.hub.api.TokenCheck;
import io.fleetbus.hub.apidoc.ApiRoutes;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.text.JsonText;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /mcp}: the MCP Streamable HTTP transport. POST carries one JSON-RPC message (answered as JSON,
 * or as an SSE stream when a tool call may send progress or ask for an elicitation), GET opens the
 * session's stream, DELETE ends the session. Every request carries the caller's bearer JWT.
 */
public final class McpEndpoint implements Frontend {
  private static final Logger LOG = LoggerFactory.getLogger(McpEndpoint.class);
  public static final String PATH = "/mcp";
  static final String SESSION_HEADER = "Mcp-Session-Id";
  static final String VERSION_HEADER = "MCP-Protocol-Version";
  /** Newest first: a client asking for something else is offered the newest. */
  static final List<String> VERSIONS = List.of("2025-11-25", "2025-06-18");
  private static final long KEEPALIVE_MS = 20_000;

  private final TokenCheck tokens;
  private final OriginCheck origins;
  private final long sessionIdleMs;
  private final ResourceMetadata metadata;
  private final Map<String, McpSession> sessions = new HashMap<>();
  private Vertx vertx;
  private McpTools tools;
  private McpTasks tasks;

  public McpEndpoint(TokenCheck tokens, OriginCheck origins, long sessionIdleMs) {
    this(tokens, origins, sessionIdleMs, new ResourceMetadata(io.fleetbus.hub.settings.IdentitySettings.NONE));
  }

  /** @param metadata where a 401 sends an OAuth client to discover how to get a token (RFC 9728) */
  public McpEndpoint(TokenCheck tokens, OriginCheck origins, long sessionIdleMs, ResourceMetadata metadata) {
    this.metadata = metadata;
    this.tokens = tokens;
    this.origins = origins;
    this.sessionIdleMs = sessionIdleMs;
  }

  @Override
  public void mount(Vertx vertx, Router root, CallSubmitter calls) {
    this.vertx = vertx;
    this.tools = new McpTools(vertx, calls);
    this.tasks = new McpTasks(calls);
    root.route(PATH).handler(origins);
    ApiRoutes.bind(root, "mcpMessage").handler(BodyHandler.create(false).setBodyLimit(1024 * 1024))
      .handler(ctx -> authenticated(ctx, this::post));
    ApiRoutes.bind(root, "mcpStream").handler(ctx -> authenticated(ctx, this::openStream));
    ApiRoutes.bind(root, "mcpEndSession").handler(ctx -> authenticated(ctx, this::endSession));
    root.route(PATH).handler(ctx -> ctx.response().setStatusCode(405).putHeader("Allow", "GET, POST, DELETE").end());
    vertx.setPeriodic(60_000, t -> dropIdleSessions());
    vertx.eventBus().<JsonObject>localConsumer(Revocation.REVOKED, m -> endRevoked(Revocation.fromJson(m.body())));
  }

  /** Ends every session opened with a token the revocation covers (its stream closes; the token is refused anyway). */
  private void endRevoked(Revocation revocation) {
    sessions.values().removeIf(s -> {
      if (revocation.covers(s.token())) {
        s.close();
        LOG.info("mcp session ended: its token was revoked [session: {}, subject: {}]", s.id(), s.subject());
        return true;
      }
      return false;
    });
  }

  private interface Handler {
    void handle(RoutingContext ctx, Caller caller);
  }

  private void authenticated(RoutingContext ctx, Handler next) {
    String header = ctx.request().getHeader("Authorization");
    tokens.verify(header)
      .onSuccess(caller -> next.handle(ctx, caller))
      .onFailure(err -> ctx.response().setStatusCode(401)
        .putHeader("WWW-Authenticate", metadata.challenge(ctx, header != null && !header.isBlank()))
        .putHeader("Content-Type", "application/json")
        .end(JsonRpc.error(null, JsonRpc.INVALID_REQUEST, err.getMessage()).encode()));
  }

  private void post(RoutingContext ctx, Caller caller) {
    Object parsed;
    try {
      parsed = JsonText.decode(ctx.body().buffer() == null ? "" : ctx.body().asString(), "body");
    } catch (FleetException e) {
      httpError(ctx, 400, JsonRpc.PARSE_ERROR, e.getMessage());
      return;
    }
    if (parsed instanceof JsonArray) {
      httpError(ctx, 400, JsonRpc.INVALID_REQUEST, "JSON-RPC batches are not supported; send one message per POST");
      return;
    }
    if (!(parsed instanceof JsonObject msg) || !"2.0".equals(msg.getValue("jsonrpc"))) {
      httpError(ctx, 400, JsonRpc.INVALID_REQUEST, "expected one JSON-RPC 2.0 message");
      return;
    }
    try {
      dispatch(ctx, caller, msg);
    } catch (McpError | ClassCastException e) {
      // a field of the wrong type (params a string, a number for a tool name …) is the client's mistake, not ours
      int code = e instanceof McpError m ? m.code : JsonRpc.INVALID_PARAMS;
      if (!ctx.response().headWritten()) {
        ctx.response().setStatusCode(400).putHeader("Content-Type", "application/json")
          .end(JsonRpc.error(msg.getValue("id"), code, "a field has the wrong type: " + e.getMessage()).encode());
      }
    }
  }

  private void dispatch(RoutingContext ctx, Caller caller, JsonObject msg) {
    if ("initialize".equals(JsonRpc.method(msg)) && JsonRpc.isRequest(msg)) {
      initialize(ctx, caller, msg);
      return;
    }
    McpSession session = session(ctx, caller);
    if (session == null) {
      return;
    }
    if (JsonRpc.isResponse(msg)) {
      session.answer(msg);
      ctx.response().setStatusCode(202).end();
    } else if (JsonRpc.isNotification(msg)) {
      onNotification(session, msg);
      ctx.response().setStatusCode(202).end();
    } else if (JsonRpc.isRequest(msg)) {
      onRequest(ctx, session, caller, msg);
    } else {
      httpError(ctx, 400, JsonRpc.INVALID_REQUEST, "not a JSON-RPC request, notification or response");
    }
  }

  private void initialize(RoutingContext ctx, Caller caller, JsonObject msg) {
    JsonObject params = JsonRpc.params(msg);
    String asked = params.getString("protocolVersion");
    String version = VERSIONS.contains(asked) ? asked : VERSIONS.get(0);
    JsonObject elicitation = params.getJsonObject("capabilities", new JsonObject()).getJsonObject("elicitation");
    // an empty elicitation capability means form mode; a client listing only "url" cannot show our form
    boolean form = elicitation != null && (elicitation.isEmpty() || elicitation.containsKey("form"));
    McpSession session = new McpSession(caller.subject(), caller.token(), version, form);
    sessions.put(session.id(), session);
    JsonObject clientInfo = params.getJsonObject("clientInfo", new JsonObject());
    LOG.info("mcp session started [session: {}, subject: {}, version: {}, client: {}, elicitation: {}]", session.id(),
      caller.subject(), version, clientInfo.getString("name"), form);
    new JsonReply(ctx.response(), session).respond(JsonRpc.result(msg.getValue("id"), new JsonObject()
      .put("protocolVersion", version)
      .put("capabilities", capabilities(session))
      .put("serverInfo", new JsonObject().put("name", "fleetbus-hub").put("title", "fleetbus").put("version", "0.1.0"))
      .put("instructions", "Tools run on fleet machines: call list_nodes for node ids, then pass one as the `node` "
        + "argument. Tier-3 tools need a person's approval: call them as a task to poll for the outcome.")));
  }

  private static JsonObject capabilities(McpSession session) {
    JsonObject caps = new JsonObject().put("tools", new JsonObject().put("listChanged", false));
    return session.tasks() ? caps.put("tasks", McpTasks.capability()) : caps;
  }

  /** The request's session, or null after answering 400/404 (missing, unknown, someone else's, bad version). */
  private McpSession session(RoutingContext ctx, Caller caller) {
    String id = ctx.request().getHeader(SESSION_HEADER);
    if (id == null) {
      httpError(ctx, 400, JsonRpc.INVALID_REQUEST, "send the Mcp-Session-Id from initialize");
      return null;
    }
    McpSession session = sessions.get(id);
    if (session == null || !session.subject().equals(caller.subject())) {
      httpError(ctx, 404, JsonRpc.INVALID_REQUEST, "no such session (it ended or expired): initialize again");
      return null;
    }
    String version = ctx.request().getHeader(VERSION_HEADER);
    if (version != null && !VERSIONS.contains(version)) {
      httpError(ctx, 400, JsonRpc.INVALID_REQUEST, "unsupported MCP-Protocol-Version " + version + "; this hub speaks " + VERSIONS);
      return null;
    }
    session.touch();
    return session;
  }

  private void onNotification(McpSession session, JsonObject msg) {
    if ("notifications/cancelled".equals(JsonRpc.method(msg))) {
      Object requestId = JsonRpc.params(msg).getValue("requestId");
      if (session.cancel(requestId)) {
        LOG.info("mcp request cancelled [session: {}, request: {}]", session.id(), requestId);
      }
    }
  }

  private void onRequest(RoutingContext ctx, McpSession session, Caller caller, JsonObject msg) {
    Object id = msg.getValue("id");
    String method = JsonRpc.method(msg);
    try {
      JsonObject params = JsonRpc.params(msg);
      switch (method == null ? "" : method) {
        case "ping" -> new JsonReply(ctx.response(), session).respond(JsonRpc.result(id, new JsonObject()));
        case "tools/list" -> new JsonReply(ctx.response(), session)
          .respond(JsonRpc.result(id, tools.list(caller, session.tasks())));
        case "tasks/get", "tasks/result", "tasks/cancel" -> {
          if (!session.tasks()) {
            throw new McpError(JsonRpc.METHOD_NOT_FOUND, method + " needs protocol 2025-11-25 (this session speaks "
              + session.protocolVersion() + ")");
          }
          tasks.handle(method, caller, id, params, new JsonReply(ctx.response(), session), () -> !ctx.response().closed());
        }
        case "tools/call" -> {
          boolean stream = tools.wantsStream(session, caller, params) && accepts(ctx, "text/event-stream");
          McpReply reply = stream ? new SseReply(ctx.response(), session) : new JsonReply(ctx.response(), session);
          try {
            tools.call(session, caller, id, params, reply);
          } catch (McpError e) {
            // an event stream may already be open (its head sent): the error must travel inside it
            reply.respond(JsonRpc.error(id, e.code, e.getMessage()));
          }
        }
        default -> new JsonReply(ctx.response(), session)
          .respond(JsonRpc.error(id, JsonRpc.METHOD_NOT_FOUND, "method " + method + " is not offered by this server"));
      }
    } catch (McpError e) {
      new JsonReply(ctx.response(), session).respond(JsonRpc.error(id, e.code, e.getMessage()));
    }
  }

  private void openStream(RoutingContext ctx, Caller caller) {
    McpSession session = session(ctx, caller);
    if (session == null) {
      return;
    }
    if (!accepts(ctx, "text/event-stream")) {
      httpError(ctx, 406, JsonRpc.INVALID_REQUEST, "GET opens an event stream: send Accept: text/event-stream");
      return;
    }
    HttpServerResponse response = ctx.response();
    SseReply.open(response, session);
    session.stream(response);
    long timer = vertx.setPeriodic(KEEPALIVE_MS, t -> {
      if (!response.ended() && !response.closed()) {
        response.write(": keepalive\n\n");
      }
    });
    response.closeHandler(v -> vertx.cancelTimer(timer));
    response.endHandler(v -> vertx.cancelTimer(timer));
  }

  private void endSession(RoutingContext ctx, Caller caller) {
    McpSession session = session(ctx, caller);
    if (session == null) {
      return;
    }
    sessions.remove(session.id());
    session.close();
    LOG.info("mcp session ended [session: {}, subject: {}]", session.id(), caller.subject());
    ctx.response().setStatusCode(204).end();
  }

  private void dropIdleSessions() {
    long cutoff = System.currentTimeMillis() - sessionIdleMs;
    sessions.values().removeIf(s -> {
      if (s.idleSince(cutoff)) {
        s.close();
        return true;
      }
      return false;
    });
  }

  private static boolean accepts(RoutingContext ctx, String type) {
    String accept = ctx.request().getHeader("Accept");
    return accept == null || accept.contains(type) || accept.contains("*/*");
  }

  private static void httpError(RoutingContext ctx, int status, int rpcCode, String message) {
    ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json")
      .end(JsonRpc.error(null, rpcCode, message).encode());
  }
}
