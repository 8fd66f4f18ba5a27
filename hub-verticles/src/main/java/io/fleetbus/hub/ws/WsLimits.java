package io.fleetbus.hub.ws;

/**
 * Per-socket bounds.
 *
 * @param maxQueuedBytes    outbound bytes a slow client may leave unread before the socket is closed
 * @param maxCallsInFlight  calls one socket may have running at once (more answer 429)
 * @param authTimeoutMs     how long a socket without a header token has to send its auth message
 * @param maxUnauthenticatedSockets sockets without a header token waiting for their auth message at once (each may
 *                          hold a whole frame, up to 1 MiB, before the hub reads it): more are answered 429
 */
public record WsLimits(int maxQueuedBytes, int maxCallsInFlight, long authTimeoutMs, int maxUnauthenticatedSockets) {
  public static final int MAX_UNAUTHENTICATED_SOCKETS = 64;
}
