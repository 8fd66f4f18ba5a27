package io.fleetbus.hub.bridge;

import io.vertx.core.json.JsonObject;

/**
 * What a TCP bridge client without a valid token yet may make the hub hold (issue 35), from the conf's
 * {@code frontends.tcpBridge} section. A connection is authenticated by its first frame whose token verifies (a
 * {@code send} or a {@code register}); until then its frames may be {@code maxUnauthenticatedFrameBytes} at most, it
 * must authenticate within {@code authWithinSeconds}, it is closed when it leaves the hub's answers unread, and only
 * {@code maxUnauthenticatedConnections} such connections may be open at once, {@code
 * maxUnauthenticatedConnectionsPerAddress} of them from one address (so one client cannot take every place).
 */
public record TcpBridgeLimits(int maxUnauthenticatedFrameBytes, int authWithinSeconds,
                              int maxUnauthenticatedConnections, int maxUnauthenticatedConnectionsPerAddress) {
  /** A token and a call's arguments fit; 256 connections × 64 KiB bounds what they hold to 16 MiB. */
  static final int UNAUTHENTICATED_FRAME_BYTES = 64 << 10;
  static final int AUTH_WITHIN_SECONDS = 30;
  static final int MAX_UNAUTHENTICATED_CONNECTIONS = 256;
  /** As on the edge port: a host whose scripts connect at once (or a NAT) shares one address; raise it there. */
  static final int MAX_UNAUTHENTICATED_PER_ADDRESS = 32;
  public static final TcpBridgeLimits DEFAULT = new TcpBridgeLimits(UNAUTHENTICATED_FRAME_BYTES, AUTH_WITHIN_SECONDS,
    MAX_UNAUTHENTICATED_CONNECTIONS);

  /** With the default cap per address. */
  public TcpBridgeLimits(int maxUnauthenticatedFrameBytes, int authWithinSeconds, int maxUnauthenticatedConnections) {
    this(maxUnauthenticatedFrameBytes, authWithinSeconds, maxUnauthenticatedConnections, MAX_UNAUTHENTICATED_PER_ADDRESS);
  }

  public static TcpBridgeLimits fromConf(JsonObject conf) {
    JsonObject tcp = conf.getJsonObject("frontends", new JsonObject()).getJsonObject("tcpBridge", new JsonObject());
    return new TcpBridgeLimits(
      Math.min(TcpBridgeConnection.MAX_FRAME, tcp.getInteger("maxUnauthenticatedFrameBytes", UNAUTHENTICATED_FRAME_BYTES)),
      Math.max(1, tcp.getInteger("authWithinSeconds", AUTH_WITHIN_SECONDS)),
      tcp.getInteger("maxUnauthenticatedConnections", MAX_UNAUTHENTICATED_CONNECTIONS),
      tcp.getInteger("maxUnauthenticatedConnectionsPerAddress", MAX_UNAUTHENTICATED_PER_ADDRESS));
  }
}
