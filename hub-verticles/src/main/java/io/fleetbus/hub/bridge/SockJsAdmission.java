package io.fleetbus.hub.bridge;

import io.fleetbus.hub.settings.SockJsLimits;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.handler.sockjs.SockJSSocket;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SockJS sockets that have shown no valid token yet (issue 35): at most {@link SockJsLimits#maxUnauthenticatedSockets}
 * at once, each given {@link SockJsLimits#authWithinSeconds}. A refused or expired socket hears why (an {@code err}
 * frame naming the conf key, as the bridge's own errors look) before it is closed.
 */
final class SockJsAdmission {
  private static final Logger LOG = LoggerFactory.getLogger(SockJsAdmission.class);

  private final Vertx vertx;
  private final SockJsLimits limits;
  /** Each unauthenticated socket with its deadline's timer. */
  private final Map<SockJSSocket, Long> waiting = new ConcurrentHashMap<>();
  private final AtomicInteger count = new AtomicInteger();

  SockJsAdmission(Vertx vertx, SockJsLimits limits) {
    this.vertx = vertx;
    this.limits = limits;
  }

  /** A new socket: false (it was told why) when the cap is reached; else its deadline starts. */
  boolean admit(SockJSSocket socket) {
    if (count.incrementAndGet() > limits.maxUnauthenticatedSockets()) {
      count.decrementAndGet();
      tell(socket, limits.maxUnauthenticatedSockets() + " sockets have shown no valid token yet;"
        + " frontends.sockjs.maxUnauthenticatedSockets allows more");
      return false;
    }
    long timer = vertx.setTimer(limits.authWithinSeconds() * 1000L, t -> {
      if (release(socket, false)) {
        tell(socket, "no valid token within " + limits.authWithinSeconds() + " s (frontends.sockjs.authWithinSeconds):"
          + " send or register with the header authorization");
        socket.close();
      }
    });
    waiting.put(socket, timer);
    return true;
  }

  /** A token of this socket verified (or it closed): the bounds no longer apply, its place is given back. */
  boolean release(Object socket, boolean cancelTimer) {
    Long timer = socket instanceof SockJSSocket s ? waiting.remove(s) : null;
    if (timer == null) {
      return false;
    }
    count.decrementAndGet();
    if (cancelTimer) {
      vertx.cancelTimer(timer);
    }
    return true;
  }

  private static void tell(SockJSSocket socket, String why) {
    LOG.info("sockjs socket closed [remote: {}, reason: {}]", socket.remoteAddress(), why);
    socket.write(new JsonObject().put("type", "err").put("body", why).encode());
  }
}
