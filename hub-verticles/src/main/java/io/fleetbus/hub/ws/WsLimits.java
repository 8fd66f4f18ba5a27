package io.fleetbus.hub.ws;

/**
 * Per-socket bounds.
 *
 * @param maxQueuedBytes    outbound bytes a slow client may leave unread before the socket is closed
 * @param maxCallsInFlight  calls one socket may have running at once (more answer 429)
 * @param authTimeoutMs     how long a socket without a header token has to send its auth message
 */
public record WsLimits(int maxQueuedBytes, int maxCallsInFlight, long authTimeoutMs) {
}
