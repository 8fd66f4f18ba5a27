package io.fleetbus.hub.settings;

import io.vertx.core.json.JsonObject;

/**
 * What SockJS sockets ({@code /eventbus}) that have shown no valid token yet may hold (issue 35), from the conf's
 * {@code frontends.sockjs} section. A socket is authenticated by its first {@code send} or {@code register} whose token
 * verifies; until then it must do so within {@code authWithinSeconds} (a socket that only pings, or sends what is
 * refused, is closed then), and only {@code maxUnauthenticatedSockets} such sockets may be open at once (each may hold
 * a WebSocket frame of up to 1 MiB): one more is told why and closed.
 */
public record SockJsLimits(int authWithinSeconds, int maxUnauthenticatedSockets) {
  public static final int AUTH_WITHIN_SECONDS = 30;
  /** As for the WebSocket API: 64 × a 1-MiB frame bounds what they hold. */
  public static final int MAX_UNAUTHENTICATED_SOCKETS = 64;
  public static final SockJsLimits DEFAULT = new SockJsLimits(AUTH_WITHIN_SECONDS, MAX_UNAUTHENTICATED_SOCKETS);

  /** From the {@code frontends} section. */
  public static SockJsLimits fromConf(JsonObject frontends) {
    JsonObject sockJs = frontends.getJsonObject("sockjs", new JsonObject());
    return new SockJsLimits(Math.max(1, sockJs.getInteger("authWithinSeconds", AUTH_WITHIN_SECONDS)),
      sockJs.getInteger("maxUnauthenticatedSockets", MAX_UNAUTHENTICATED_SOCKETS));
  }
}
