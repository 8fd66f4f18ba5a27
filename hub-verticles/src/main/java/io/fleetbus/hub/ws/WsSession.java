package io.fleetbus.hub.ws;

import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.hub.auth.Revocation;
import io.fleetbus.hub.authz.Access;
import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.hub.api.PublicEvents;
import io.fleetbus.hub.api.TokenCheck;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.ServerWebSocket;
import io.fleetbus.shared.text.JsonText;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WebSocket: authenticates it (and tells the API once it did, or closed first), dispatches its messages, keeps
 * its calls and subscriptions, and bounds what waits for a slow reader. Confined to the socket's event loop.
 */
final class WsSession {
  private static final Logger LOG = LoggerFactory.getLogger(WsSession.class);
  static final short POLICY_VIOLATION = 1008;
  private final Vertx vertx;
  private final ServerWebSocket ws;
  static final int MAX_UNAUTHENTICATED_CHARS = 64 * 1024;
  private final TokenCheck tokens;
  private final CallSubmitter calls;
  private final WsLimits limits;
  private final Runnable leftUnauthenticated;
  private final Map<String, WsCall> inFlight = new HashMap<>();
  private final Map<String, MessageConsumer<Object>> subscriptions = new HashMap<>();
  private Caller caller;
  private boolean closed;
  private MessageConsumer<JsonObject> revocations;

  WsSession(Vertx vertx, ServerWebSocket ws, Caller caller, TokenCheck tokens, CallSubmitter calls, WsLimits limits,
            Runnable leftUnauthenticated) {
    this.leftUnauthenticated = leftUnauthenticated;
    this.vertx = vertx;
    this.ws = ws;
    this.caller = caller;
    this.tokens = tokens;
    this.calls = calls;
    this.limits = limits;
  }

  void start() {
    ws.setWriteQueueMaxSize(limits.maxQueuedBytes());
    ws.textMessageHandler(this::onText);
    ws.binaryMessageHandler(b -> error(null, FailureCode.BAD_REQUEST, "send JSON text messages, not binary"));
    ws.closeHandler(v -> {
      closed = true;
      release();
    });
    ws.exceptionHandler(err -> LOG.debug("websocket error [remote: {}]", ws.remoteAddress(), err));
    // a revocation that covers this socket's token closes it (the token is refused from then on anyway)
    revocations = vertx.eventBus().localConsumer(Revocation.REVOKED, m -> {
      if (caller != null && Revocation.fromJson(m.body()).covers(caller.token())) {
        LOG.info("websocket closed: its token was revoked [subject: {}]", caller.subject());
        close("token revoked");
      }
    });
    if (caller != null) {
      sendAuthenticated();
    } else {
      vertx.setTimer(limits.authTimeoutMs(), t -> {
        if (caller == null && !closed) {
          close("no auth message within " + limits.authTimeoutMs() / 1000 + " s: send {\"type\":\"auth\",\"token\":\"<JWT>\"} first");
        }
      });
    }
  }

  Caller caller() {
    return caller;
  }

  CallSubmitter calls() {
    return calls;
  }

  Vertx vertx() {
    return vertx;
  }

  boolean isClosed() {
    return closed;
  }

  private void onText(String text) {
    if (caller == null && text.length() > MAX_UNAUTHENTICATED_CHARS) {
      // said before the close, so the client knows why: nothing this large is parsed before authentication
      error(null, FailureCode.TOO_LARGE, "first message too large: " + text.length() + " characters; before authentication"
        + " a message may hold at most " + MAX_UNAUTHENTICATED_CHARS / 1024 + " KiB ({\"type\":\"auth\",\"token\":\"<JWT>\"})");
      closeWith((short) 1009, "first message too large");
      return;
    }
    JsonObject msg;
    try {
      msg = JsonText.object(text, "message");
    } catch (FleetException e) {
      error(null, FailureCode.BAD_REQUEST, e.getMessage() + " (a message is a JSON object with a \"type\")");
      return;
    }
    // {"type": null} or a non-string type is just an unknown type
    String type = msg.getValue("type") instanceof String t ? t : "";
    if (caller == null && !"auth".equals(type)) {
      error(msg.getValue("id"), FailureCode.UNAUTHORIZED, "authenticate first: {\"type\":\"auth\",\"token\":\"<JWT>\"}");
      return;
    }
    try {
      switch (type) {
        case "auth" -> auth(msg);
        case "call" -> call(msg);
        case "cancel" -> cancel(msg);
        case "subscribe" -> subscribe(msg);
        case "unsubscribe" -> unsubscribe(msg);
        case "ping" -> send(new JsonObject().put("type", "pong").put("id", msg.getValue("id")));
        default -> error(msg.getValue("id"), FailureCode.BAD_REQUEST,
          "unknown message type '" + type + "'; use auth, call, cancel, subscribe, unsubscribe or ping");
      }
    } catch (FleetException e) {
      error(msg.getValue("id"), e.code(), e.getMessage());
    } catch (ClassCastException e) {
      error(msg.getValue("id"), FailureCode.BAD_REQUEST, "a field has the wrong type: " + e.getMessage());
    }
  }

  private void auth(JsonObject msg) {
    tokens.verify(msg.getString("token")).onComplete(ar -> {
      if (ar.succeeded()) {
        caller = ar.result();
        leftUnauthenticated.run();
        sendAuthenticated();
      } else {
        error(null, FailureCode.UNAUTHORIZED, ar.cause().getMessage());
        if (caller == null) {
          close("authentication failed");
        }
      }
    });
  }

  private void sendAuthenticated() {
    send(new JsonObject().put("type", "authenticated").put("subject", caller.subject())
      .put("roles", new JsonArray(caller.roles())));
  }

  private void call(JsonObject msg) {
    String id = requireId(msg);
    if (inFlight.containsKey(id)) {
      throw FailureCode.CONFLICT.exception("call id '" + id + "' is still in flight on this socket");
    }
    if (inFlight.size() >= limits.maxCallsInFlight()) {
      throw FailureCode.RATE_LIMITED.exception(limits.maxCallsInFlight() + " calls are already in flight on this socket;"
        + " wait for one to finish");
    }
    JsonObject args = msg.getJsonObject("args", new JsonObject());
    // {node} names one node; {labels, platform, minCapabilityTier, mode, maxConcurrency, maxErrors} picks them
    JsonObject selector = null;
    if (msg.getString("node") == null && msg.containsKey("labels")) {
      JsonObject sel = new JsonObject();
      for (String key : java.util.List.of("labels", "platform", "minCapabilityTier", "mode", "maxConcurrency", "maxErrors")) {
        if (msg.containsKey(key)) {
          sel.put(key, msg.getValue(key));
        }
      }
      selector = io.fleetbus.hub.routing.Selector.fromJson(sel).toJson();
    }
    // output chunks by default; "stream": false skips them (and the per-call stream subscription they cost)
    if (msg.containsKey("stream") && !(msg.getValue("stream") instanceof Boolean)) {
      throw FailureCode.BAD_REQUEST.exception("'stream' must be true or false");
    }
    if (msg.getValue("idempotencyKey") != null && !(msg.getValue("idempotencyKey") instanceof String)) {
      throw FailureCode.BAD_REQUEST.exception("'idempotencyKey' must be a string");
    }
    ToolCall prepared;
    try {
      prepared = calls.prepare(caller, msg.getString("tool"), args, msg.getString("node"), selector,
        msg.getString("idempotencyKey"), msg.getBoolean("stream", true));
    } catch (FleetException e) {
      // audited before the error frame
      calls.refused(caller, msg.getValue("tool") instanceof String t ? t : null, msg.getValue("node") instanceof String n ? n
        : null, e).onComplete(v -> error(msg.getValue("id"), e.code(), e.getMessage()));
      return;
    }
    WsCall call = new WsCall(this, msg.getValue("id"), prepared);
    inFlight.put(id, call);
    call.start();
  }

  void finished(WsCall call) {
    inFlight.remove(String.valueOf(call.clientId()));
  }

  private void cancel(JsonObject msg) {
    String id = requireId(msg);
    WsCall call = inFlight.get(id);
    if (call == null) {
      throw FailureCode.NOT_FOUND.exception("no call '" + id + "' in flight on this socket");
    }
    if (call.following()) {
      call.stopFollowing(msg.getValue("id"));
      return;
    }
    calls.cancel(caller, call.callId()).onComplete(ar -> {
      LOG.info("websocket cancel [call: {}, by: {}, outcome: {}]", call.callId(), caller.subject(),
        ar.succeeded() ? ar.result().encode() : ar.cause().getMessage());
      if (ar.succeeded()) {
        send(new JsonObject().put("type", "cancelled").put("id", msg.getValue("id")).put("callId", call.callId())
          .put("ran", ar.result().getBoolean("ran")));
      } else {
        error(msg.getValue("id"), FailureCode.of(ar.cause()), ar.cause().getMessage());
      }
    });
  }

  private void subscribe(JsonObject msg) {
    WsTopic topic = WsTopic.of(msg.getString("topic"));
    if (!subscriptions.containsKey(topic.topicName())) {
      MessageConsumer<Object> consumer = vertx.eventBus().consumer(topic.address(), m -> {
        JsonObject data = PublicEvents.toJson(m.body());
        if (topic.wants(data) && Access.hears(caller, data)) {
          send(new JsonObject().put("type", "event").put("topic", topic.topicName()).put("data", data));
        }
      });
      subscriptions.put(topic.topicName(), consumer);
    }
    subscriptions.get(topic.topicName()).completion()
      .onSuccess(v -> send(new JsonObject().put("type", "subscribed").put("topic", topic.topicName())));
  }

  private void unsubscribe(JsonObject msg) {
    WsTopic topic = WsTopic.of(msg.getString("topic"));
    MessageConsumer<Object> consumer = subscriptions.remove(topic.topicName());
    if (consumer != null) {
      consumer.unregister();
    }
    send(new JsonObject().put("type", "unsubscribed").put("topic", topic.topicName()));
  }

  private static String requireId(JsonObject msg) {
    Object id = msg.getValue("id");
    if (!(id instanceof String) && !(id instanceof Number)) {
      throw FailureCode.BAD_REQUEST.exception("\"id\" (a string or number chosen by the client) is required");
    }
    return String.valueOf(id);
  }

  void error(Object id, FailureCode code, String message) {
    send(new JsonObject().put("type", "error").put("id", id).put("code", code.code).put("message", message));
  }

  /** Writes one message, or closes the socket when the client has left too much unread. */
  void send(JsonObject msg) {
    // an answer that comes after a wait (an audit commit …) may find the client gone
    if (closed || ws.isClosed()) {
      return;
    }
    if (ws.writeQueueFull()) {
      LOG.warn("websocket closed: outbound queue full [subject: {}, limitBytes: {}]",
        caller == null ? null : caller.subject(), limits.maxQueuedBytes());
      close("outbound queue full: the client reads too slowly (limit " + limits.maxQueuedBytes() + " bytes)");
      return;
    }
    ws.writeTextMessage(msg.encode());
  }

  private void close(String reason) {
    closeWith(POLICY_VIOLATION, reason);
  }

  private void closeWith(short status, String reason) {
    if (!closed) {
      closed = true;
      ws.close(status, reason.length() > 120 ? reason.substring(0, 120) : reason);
      release();
    }
  }

  private void release() {
    leftUnauthenticated.run();
    if (revocations != null) {
      revocations.unregister();
      revocations = null;
    }
    subscriptions.values().forEach(MessageConsumer::unregister);
    subscriptions.clear();
    inFlight.values().forEach(WsCall::detach);
    inFlight.clear();
  }
}
