package io.fleetbus.hub.edge;

import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Edge links refused before their TLS handshake, logged once per address a minute (issue 35): a client that reconnects
 * as fast as it is refused costs the hub a counter per connect, not a WARN line each. The first refusal from an address
 * is logged at once; later ones within the minute are counted and named in that address's next line. Event-loop only.
 */
final class RefusalLog {
  private static final Logger LOG = LoggerFactory.getLogger(EdgeEndpointVerticle.class);
  static final long WINDOW_MS = 60_000;
  /** Addresses remembered at most; past it, those not logged within the window are forgotten. */
  private static final int MAX_ADDRESSES = 4096;
  private static final String OTHERS = "(other addresses)";

  private record Seen(long loggedAt, int since) {
  }

  private final Map<String, Seen> byAddress = new HashMap<>();

  /** One link from {@code address} refused for {@code reason} at {@code nowMs}; logged or counted. */
  void refused(String address, String reason, long nowMs) {
    if (byAddress.size() >= MAX_ADDRESSES && !byAddress.containsKey(address)) {
      byAddress.values().removeIf(s -> nowMs - s.loggedAt >= WINDOW_MS);
    }
    // still full: the rest share one line a minute
    String from = byAddress.size() >= MAX_ADDRESSES && !byAddress.containsKey(address) ? OTHERS : address;
    Seen seen = byAddress.get(from);
    if (seen != null && nowMs - seen.loggedAt < WINDOW_MS) {
      byAddress.put(from, new Seen(seen.loggedAt, seen.since + 1));
      return;
    }
    byAddress.put(from, new Seen(nowMs, 0));
    LOG.warn("edge link refused [address: {}, reason: {}, refused from there since its last line: {}]", from, reason,
      seen == null ? 0 : seen.since);
  }
}
