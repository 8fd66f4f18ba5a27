package io.fleetbus.hub.bridge;

import io.fleetbus.hub.authz.Caller;
import io.fleetbus.hub.authz.Access;
import io.vertx.ext.web.handler.sockjs.SockJSSocket;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import io.fleetbus.hub.api.PublicEvents;
import io.fleetbus.hub.api.TokenCheck;
import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.bridge.BaseBridgeEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SockJS bridge's event hook (the TCP bridge's connections use its token and header rules too). Nobody publishes; a send is only ever to the call
 * address, and its JWT (header {@code authorization}) is checked here: the client's headers are replaced
 * by the verified caller (or the reason it was refused), so the call handler never sees a raw token.
 * Registering for events needs a valid JWT too; what goes out is JSON without credentials.
 */
final class BridgeGuard {
  private static final Logger LOG = LoggerFactory.getLogger(BridgeGuard.class);
  static final String CALLER_HEADER = "x-fleetbus-caller";
  static final String AUTH_ERROR_HEADER = "x-fleetbus-auth-error";

  private final TokenCheck tokens;
  private final Map<Object, Caller> callers = new ConcurrentHashMap<>();
  /** SockJS sockets without a valid token yet: capped and given a deadline (null for the TCP bridge's use). */
  private final SockJsAdmission admission;

  BridgeGuard(TokenCheck tokens, SockJsAdmission admission) {
    this.tokens = tokens;
    this.admission = admission;
  }

  /**
   * {@code socket} identifies the client connection (SockJS): the caller its registration proved is kept, and
   * each outgoing event is filtered by {@link Access#hears} for that caller.
   */
  void handle(BaseBridgeEvent event, Object socket) {
    JsonObject raw = event.getRawMessage();
    switch (event.type()) {
      case SOCKET_CREATED -> event.complete(!(socket instanceof SockJSSocket s) || admission == null
        || admission.admit(s));
      case SEND -> send(event, raw, socket);
      case PUBLISH -> refuse(event, raw, "publishing");
      case REGISTER -> tokens.verify(token(raw)).onComplete(ar -> {
        if (ar.failed()) {
          LOG.info("bridge register refused [address: {}, reason: {}]", raw.getValue("address"), ar.cause().getMessage());
        } else if (socket != null) {
          callers.put(socket, ar.result());
          released(socket);
        }
        event.complete(ar.succeeded());
      });
      case RECEIVE -> {
        Object body = raw == null ? null : PublicEvents.toJson(raw.getValue("body"));
        Caller caller = socket == null ? null : callers.get(socket);
        if (caller != null && tokens.revoked(caller)) {
          // its registration's token was revoked: this socket hears nothing more, and is closed
          event.complete(false);
          if (socket instanceof SockJSSocket s) {
            LOG.info("bridge socket closed: its token was revoked [subject: {}]", caller.subject());
            s.close();
          }
          return;
        }
        if (body instanceof JsonObject e && !Access.hears(caller, e)) {
          event.complete(false);
          return;
        }
        if (raw != null && raw.containsKey("body")) {
          raw.put("body", body);
        }
        event.complete(true);
      }
      case SOCKET_CLOSED -> {
        if (socket != null) {
          callers.remove(socket);
          released(socket);
        }
        event.complete(true);
      }
      default -> event.complete(true);
    }
  }

  /** The socket showed a valid token (or closed): it leaves the unauthenticated sockets' count. */
  private void released(Object socket) {
    if (admission != null) {
      admission.release(socket, true);
    }
  }

  private void send(BaseBridgeEvent event, JsonObject raw, Object socket) {
    if (!Addresses.BRIDGE_CALL.equals(raw.getValue("address"))) {
      refuse(event, raw, "sending");
      return;
    }
    tokens.verify(token(raw)).onComplete(ar -> {
      if (ar.succeeded() && socket != null) {
        released(socket);
      }
      // in place: the bridge goes on with this same JSON object once the hook completes
      raw.put("headers", callerHeaders(ar));
      event.complete(true);
    });
  }

  /** What the call verticle is told instead of the client's headers: the verified caller, or why there is none. */
  static JsonObject callerHeaders(io.vertx.core.AsyncResult<Caller> verified) {
    return verified.succeeded()
      ? new JsonObject().put(CALLER_HEADER, new JsonObject().put("sub", verified.result().subject())
        .put("roles", new JsonArray(verified.result().roles())).encode())
      : new JsonObject().put(AUTH_ERROR_HEADER, verified.cause().getMessage());
  }

  private static void refuse(BaseBridgeEvent event, JsonObject raw, String what) {
    LOG.info("bridge refused {} [address: {}]", what, raw == null ? null : raw.getValue("address"));
    event.complete(false);
  }

  static String token(JsonObject raw) {
    // frames come straight from clients: a header block or token of another JSON type is simply no token
    if (raw == null || !(raw.getValue("headers") instanceof JsonObject headers)) {
      return null;
    }
    Object value = headers.getValue("authorization");
    if (value == null) {
      value = headers.getValue("Authorization");
    }
    return value instanceof String s ? s : null;
  }
}
