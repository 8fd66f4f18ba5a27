package io.fleetbus.hub.bridge;

import io.fleetbus.hub.api.PublicEvents;
import io.fleetbus.hub.api.TokenCheck;
import io.fleetbus.hub.authz.Access;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetSocket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP bridge client. Frames in: {@code send} (only to {@code fleet.bridge.call}, JWT in header
 * {@code authorization}), {@code register}/{@code unregister} ({@code fleet.events}, {@code fleet.bridge.heartbeat};
 * a valid JWT), {@code ping}; {@code publish} and every other address are refused ({@code access_denied}). Frames out:
 * replies, and the events and heartbeats this connection's caller may hear ({@link Access#hears}), as JSON without
 * credentials. A frame over {@value #MAX_FRAME} bytes closes the connection. Until a frame's token verifies the
 * connection is unauthenticated and bounded by {@link TcpBridgeLimits}: smaller frames, a deadline, answers it must read.
 */
final class TcpBridgeConnection {
  private static final Logger LOG = LoggerFactory.getLogger(TcpBridgeConnection.class);
  static final int MAX_FRAME = 1 << 20;

  private final Vertx vertx;
  private final NetSocket socket;
  private final TokenCheck tokens;
  private final TcpBridgeLimits limits;
  /** Told once: when a token of this connection verified, or when it closed before one did. */
  private final Consumer<TcpBridgeConnection> leftUnauthenticated;
  private boolean authenticated;
  private long authTimer = -1;
  private final Map<String, MessageConsumer<Object>> registered = new HashMap<>();
  private Buffer pending = Buffer.buffer();
  private boolean closed;

  TcpBridgeConnection(Vertx vertx, NetSocket socket, TokenCheck tokens, TcpBridgeLimits limits,
                      Consumer<TcpBridgeConnection> leftUnauthenticated) {
    this.vertx = vertx;
    this.socket = socket;
    this.tokens = tokens;
    this.limits = limits;
    this.leftUnauthenticated = leftUnauthenticated;
  }

  void start() {
    socket.handler(this::read);
    socket.closeHandler(v -> closed());
    socket.exceptionHandler(err -> LOG.debug("tcp bridge connection failed [remote: {}]", socket.remoteAddress(), err));
    authTimer = vertx.setTimer(limits.authWithinSeconds() * 1000L, t -> {
      if (!authenticated) {
        refuse("no valid token within " + limits.authWithinSeconds() + " s (frontends.tcpBridge.authWithinSeconds)");
      }
    });
  }

  /** A token of this connection verified: the unauthenticated bounds no longer apply. */
  private void authenticated() {
    if (!authenticated && !closed) {
      authenticated = true;
      vertx.cancelTimer(authTimer);
      leftUnauthenticated.accept(this);
    }
  }

  /** Closes the connection, saying why first. */
  void refuse(String why) {
    LOG.info("tcp bridge connection closed [remote: {}, reason: {}]", socket.remoteAddress(), why);
    err(null, why);
    close();
  }

  private void read(Buffer data) {
    pending.appendBuffer(data);
    while (!closed && pending.length() >= 4) {
      int length = pending.getInt(0);
      int cap = authenticated ? MAX_FRAME : limits.maxUnauthenticatedFrameBytes();
      if (length < 0 || length > cap) {
        refuse("frame of " + length + " bytes: at most " + cap + (authenticated ? "" : " before a valid token"
          + " (frontends.tcpBridge.maxUnauthenticatedFrameBytes)"));
        return;
      }
      if (pending.length() < 4 + length) {
        return;
      }
      String text = pending.getString(4, 4 + length, StandardCharsets.UTF_8.name());
      pending = pending.getBuffer(4 + length, pending.length());
      JsonObject frame;
      try {
        frame = new JsonObject(text);
      } catch (RuntimeException e) {
        err(null, "invalid_json");
        continue;
      }
      handle(frame);
    }
  }

  private void handle(JsonObject frame) {
    String type = frame.getValue("type") instanceof String s ? s : "";
    String address = frame.getValue("address") instanceof String s ? s : null;
    if (!type.equals("ping") && address == null) {
      err(null, "missing_address");
      return;
    }
    switch (type) {
      case "ping" -> write(new JsonObject().put("type", "pong"));
      case "send" -> send(frame, address);
      case "register" -> register(frame, address);
      case "unregister" -> unregister(address);
      case "publish" -> denied("publishing", address);
      default -> err(null, "unknown_type");
    }
  }

  private void send(JsonObject frame, String address) {
    if (!Addresses.BRIDGE_CALL.equals(address)) {
      denied("sending", address);
      return;
    }
    String replyAddress = frame.getValue("replyAddress") instanceof String s ? s : null;
    Object body = frame.getValue("body");
    tokens.verify(BridgeGuard.token(frame)).onComplete(ar -> {
      if (ar.succeeded()) {
        authenticated();
      }
      DeliveryOptions options = new DeliveryOptions().setLocalOnly(true);
      BridgeGuard.callerHeaders(ar).forEach(h -> options.addHeader(h.getKey(), String.valueOf(h.getValue())));
      if (replyAddress == null) {
        vertx.eventBus().send(address, body, options);
        return;
      }
      vertx.eventBus().request(address, body, options).onComplete(reply -> {
        if (reply.succeeded()) {
          write(new JsonObject().put("type", "message").put("address", replyAddress).put("send", true)
            .put("headers", new JsonObject()).put("body", reply.result().body()));
        } else {
          JsonObject err = new JsonObject().put("type", "err").put("address", replyAddress).put("sourceAddress", address)
            .put("message", reply.cause().getMessage());
          if (reply.cause() instanceof ReplyException re) {
            err.put("failureCode", re.failureCode()).put("failureType", re.failureType().name());
          }
          write(err);
        }
      });
    });
  }

  private void register(JsonObject frame, String address) {
    String source = Addresses.EVENTS.equals(address) ? Addresses.EVENTS
      : Addresses.BRIDGE_HEARTBEAT_JSON.equals(address) ? Addresses.HEARTBEAT : null;
    if (source == null) {
      denied("registering", address);
      return;
    }
    tokens.verify(BridgeGuard.token(frame)).onComplete(ar -> {
      if (ar.failed()) {
        LOG.info("bridge register refused [address: {}, reason: {}]", address, ar.cause().getMessage());
        err(address, "access_denied");
      } else if (!closed && !registered.containsKey(address)) {
        authenticated();
        Caller caller = ar.result();
        registered.put(address, vertx.eventBus().consumer(source, m -> deliver(caller, address, m.body())));
      }
    });
  }

  /** One event or heartbeat, to this connection only if its caller may hear it (and still holds a valid token). */
  private void deliver(Caller caller, String address, Object raw) {
    if (tokens.revoked(caller)) {
      LOG.info("bridge socket closed: its token was revoked [subject: {}]", caller.subject());
      close();
      return;
    }
    JsonObject body = PublicEvents.toJson(raw);
    if (Access.hears(caller, body)) {
      write(new JsonObject().put("type", "message").put("address", address).put("send", false)
        .put("headers", new JsonObject()).put("body", body));
    }
  }

  private void unregister(String address) {
    MessageConsumer<Object> consumer = registered.remove(address);
    if (consumer != null) {
      consumer.unregister();
    }
  }

  private void denied(String what, String address) {
    LOG.info("bridge refused {} [address: {}]", what, address);
    err(address, "access_denied");
  }

  private void err(String address, String message) {
    JsonObject frame = new JsonObject().put("type", "err").put("message", message);
    write(address == null ? frame : frame.put("sourceAddress", address));
  }

  private void write(JsonObject frame) {
    if (closed) {
      return;
    }
    if (!authenticated && socket.writeQueueFull()) {
      // a client without a token that does not read what it asked for (pings, errors) cannot grow the hub's queue
      LOG.info("tcp bridge connection closed [remote: {}, reason: unauthenticated and not reading its answers]",
        socket.remoteAddress());
      close();
      return;
    }
    byte[] bytes = frame.encode().getBytes(StandardCharsets.UTF_8);
    socket.write(Buffer.buffer(bytes.length + 4).appendInt(bytes.length).appendBytes(bytes));
  }

  private void close() {
    closed();
    socket.close();
  }

  private void closed() {
    if (!authenticated && !closed) {
      vertx.cancelTimer(authTimer);
      leftUnauthenticated.accept(this);
    }
    closed = true;
    registered.values().forEach(MessageConsumer::unregister);
    registered.clear();
  }
}
