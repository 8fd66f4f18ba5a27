package io.fleetbus.node.edge;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How an edge node reaches its fleet ({@code transport: "edge"} in conf/node.json, or FLEETBUS_TRANSPORT=edge): the
 * hubs' edge endpoints it may link to, tried in turn ({@code edge.hubs}, FLEETBUS_EDGE_HUBS as {@code host:port,...}),
 * and the SHA-256 of the hubs' edge certificate it pins ({@code edge.certSha256}, FLEETBUS_EDGE_CERT_SHA256; the
 * enrollment answer gives it). A lost link is tried again on the next hub after a random pause of up to
 * {@code edge.relinkSpreadMs} (default {@value #RELINK_SPREAD_MS}): a dead hub's nodes do not all relink in one instant.
 * The node pings its hub every {@code edge.pingSeconds} (15); a link from which nothing is heard within {@code
 * edge.pongWithinSeconds} (default {@value #PONG_WITHIN_SECONDS}) of a ping is taken as cut and left for a new one.
 */
public record EdgeNodeSettings(List<Hub> hubs, String certSha256, int pingSeconds, long relinkSpreadMs,
                               int handshakeSeconds, int pongWithinSeconds) {
  static final long RELINK_SPREAD_MS = 1000;
  /** How long a TLS handshake with a hub may take before the link moves to the next hub (Vert.x's default). */
  public static final int HANDSHAKE_SECONDS = 10;
  /**
   * A hub answers a ping at once; a lossy WAN link (100 ms, 5 % loss) retransmits within a second or two. Silence for
   * longer is a cut that closed nothing (TCP alone would notice it only after minutes, and once the cut heals it
   * resumes at its next retransmission, tens of seconds later).
   */
  static final int PONG_WITHIN_SECONDS = 5;

  public EdgeNodeSettings(List<Hub> hubs, String certSha256, int pingSeconds) {
    this(hubs, certSha256, pingSeconds, RELINK_SPREAD_MS, HANDSHAKE_SECONDS);
  }

  public EdgeNodeSettings(List<Hub> hubs, String certSha256, int pingSeconds, long relinkSpreadMs,
                          int handshakeSeconds) {
    this(hubs, certSha256, pingSeconds, relinkSpreadMs, handshakeSeconds, PONG_WITHIN_SECONDS);
  }

  /** One hub's edge endpoint. */
  public record Hub(String host, int port) {
    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  /** The edge settings when this node is an edge node, else null (a cluster member). */
  public static EdgeNodeSettings fromConf(JsonObject conf) {
    String transport = env("FLEETBUS_TRANSPORT", conf.getString("transport", "cluster"));
    if (!"edge".equals(transport)) {
      if (!"cluster".equals(transport)) {
        throw new IllegalArgumentException("transport '" + transport + "' must be cluster or edge");
      }
      return null;
    }
    JsonObject edge = conf.getJsonObject("edge", new JsonObject());
    List<String> listed = new ArrayList<>();
    String fromEnv = env("FLEETBUS_EDGE_HUBS", null);
    if (fromEnv != null) {
      for (String h : fromEnv.split(",")) {
        if (!h.isBlank()) {
          listed.add(h.strip());
        }
      }
    } else {
      edge.getJsonArray("hubs", new JsonArray()).forEach(h -> listed.add(String.valueOf(h)));
    }
    if (listed.isEmpty()) {
      throw new IllegalArgumentException("an edge node needs the hubs' edge endpoints: edge.hubs [\"host:port\", ...]"
        + " or FLEETBUS_EDGE_HUBS=host:port,...");
    }
    String pin = env("FLEETBUS_EDGE_CERT_SHA256", edge.getString("certSha256"));
    if (pin == null || !pin.replace(":", "").matches("[0-9A-Fa-f]{64}")) {
      throw new IllegalArgumentException("an edge node pins its hubs' certificate: edge.certSha256 (or"
        + " FLEETBUS_EDGE_CERT_SHA256) must be the 64 hex digits of its SHA-256, as the enrollment answer gives it");
    }
    return new EdgeNodeSettings(listed.stream().map(EdgeNodeSettings::hub).toList(),
      pin.replace(":", "").toLowerCase(Locale.ROOT), edge.getInteger("pingSeconds", 15),
      Math.max(0, edge.getLong("relinkSpreadMs", RELINK_SPREAD_MS)), HANDSHAKE_SECONDS,
      Math.max(1, edge.getInteger("pongWithinSeconds", PONG_WITHIN_SECONDS)));
  }

  private static Hub hub(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    try {
      int port = Integer.parseInt(hostPort.substring(colon + 1));
      if (colon <= 0 || port < 1 || port > 65535) {
        throw new NumberFormatException();
      }
      return new Hub(hostPort.substring(0, colon), port);
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      throw new IllegalArgumentException("edge hub '" + hostPort + "' must be host:port (port 1-65535)");
    }
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v.strip();
  }
}
