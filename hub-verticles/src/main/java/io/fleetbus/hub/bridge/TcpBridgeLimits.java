package io.fleetbus.hub.bridge;

import io.vertx.core.json.JsonObject;

/**
 * What a TCP bridge client without a valid token yet may make the hub hold (issue 35), from the conf's
 * {@code frontends.tcpBridge} section. A connection is authenticated by its first frame whose token verifies (a
 * {@code send} or a {@code register}); until then its frames may be {@code maxUnauthenticatedFrameBytes} at most, it
 * must authenticate within {@code authWithinSeconds}, it is closed when it leaves the hub's answers unread, and only
 * {@code maxUnauthenticatedConnections} such connections may be open at once.
 */
public record TcpBridgeLimits(int maxUnauthenticatedFrameBytes, int authWithinSeconds,
                              int maxUnauthenticatedConnections) {
  /** A token and a call's arguments fit; 256 connections × 64 KiB bounds what they hold to 16 MiB. */
  static final int UNAUTHENTICATED_FRAME_BYTES = 64 << 10;
  static final int AUTH_WITHIN_SECONDS = 30;
  static final int MAX_UNAUTHENTICATED_CONNECTIONS = 256;
  public static final TcpBridgeLimits DEFAULT = new TcpBridgeLimits(UNAUTHENTICATED_FRAME_BYTES, AUTH_WITHIN_SECONDS,
    MAX_UNAUTHENTICATED_CONNECTIONS);

  public static TcpBridgeLimits fromConf(JsonObject conf) {
    JsonObject tcp = conf.getJsonObject("frontends", new JsonObject()).getJsonObject("tcpBridge", new JsonObject());
    return new TcpBridgeLimits(
      Math.min(TcpBridgeConnection.MAX_FRAME, tcp.getInteger("maxUnauthenticatedFrameBytes", UNAUTHENTICATED_FRAME_BYTES)),
      Math.max(1, tcp.getInteger("authWithinSeconds", AUTH_WITHIN_SECONDS)),
      tcp.getInteger("maxUnauthenticatedConnections", MAX_UNAUTHENTICATED_CONNECTIONS));
  }
}
