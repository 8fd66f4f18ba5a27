package io.fleetbus.hub.edge;

import io.fleetbus.shared.edge.EdgePeer;
import io.vertx.core.json.JsonObject;

/**
 * The {@code edge} section of the hub's conf: where the edge endpoint listens ({@code port} -1, the default, keeps
 * it off; FLEETBUS_EDGE_PORT overrides), where edge nodes reach it ({@code advertise}, FLEETBUS_EDGE_ADVERTISE: a host or
 * host:port, for an address the hub does not listen on itself, e.g. behind NAT; see {@link EdgeAdvertisement}), how
 * long a silent link lives, and how much one link may carry.
 */
public record EdgeSettings(String host, int port, int idleSeconds, EdgePeer.Limits limits, int maxUnprovenLinks,
                           int maxUnprovenLinksPerAddress, int helloWithinSeconds, String advertise,
                           int handshakeThreads) {
  /** Links that have not said an accepted hello yet, at once: 256 × a 64-KiB frame each bounds what they hold. */
  static final int MAX_UNPROVEN_LINKS = 256;
  /** Of those, from one address: one client cannot take all the places (a NAT's nodes relinking at once share one). */
  static final int MAX_UNPROVEN_LINKS_PER_ADDRESS = 32;
  /** A link without an accepted hello by then is closed (a node's own hello times out after 15 s, enrolling included). */
  static final int HELLO_WITHIN_SECONDS = 30;
  /**
   * Threads doing the TLS handshakes' key exchanges and signatures: one, so however many clients connect at once they
   * take at most one core from the links already proven (a handshake takes a few ms; a relink storm waits its turn).
   */
  static final int HANDSHAKE_THREADS = 1;

  public EdgeSettings(String host, int port, int idleSeconds, EdgePeer.Limits limits, int maxUnprovenLinks,
                      int maxUnprovenLinksPerAddress, int helloWithinSeconds, String advertise) {
    this(host, port, idleSeconds, limits, maxUnprovenLinks, maxUnprovenLinksPerAddress, helloWithinSeconds, advertise,
      HANDSHAKE_THREADS);
  }

  public EdgeSettings(String host, int port, int idleSeconds, EdgePeer.Limits limits) {
    this(host, port, idleSeconds, limits, MAX_UNPROVEN_LINKS);
  }

  public EdgeSettings(String host, int port, int idleSeconds, EdgePeer.Limits limits, int maxUnprovenLinks) {
    this(host, port, idleSeconds, limits, maxUnprovenLinks, MAX_UNPROVEN_LINKS_PER_ADDRESS, HELLO_WITHIN_SECONDS, null);
  }

  public static EdgeSettings fromConf(JsonObject conf, String defaultHost) {
    JsonObject edge = conf.getJsonObject("edge", new JsonObject());
    String port = System.getenv("FLEETBUS_EDGE_PORT");
    String advertise = System.getenv("FLEETBUS_EDGE_ADVERTISE");
    EdgePeer.Limits limits = new EdgePeer.Limits(edge.getInteger("maxFrameBytes", EdgePeer.Limits.DEFAULT.maxFrameBytes()),
      edge.getInteger("maxFramesPerSecond", EdgePeer.Limits.DEFAULT.maxFramesPerSecond()),
      edge.getInteger("maxUnprovenFrameBytes", EdgePeer.Limits.UNPROVEN_FRAME_BYTES));
    return new EdgeSettings(edge.getString("host", defaultHost),
      port != null && !port.isBlank() ? Integer.parseInt(port.strip()) : edge.getInteger("port", -1),
      edge.getInteger("idleSeconds", 60), limits, edge.getInteger("maxUnprovenLinks", MAX_UNPROVEN_LINKS),
      edge.getInteger("maxUnprovenLinksPerAddress", MAX_UNPROVEN_LINKS_PER_ADDRESS),
      Math.max(1, edge.getInteger("helloWithinSeconds", HELLO_WITHIN_SECONDS)),
      advertise != null && !advertise.isBlank() ? advertise.strip() : edge.getString("advertise"),
      Math.max(1, edge.getInteger("handshakeThreads", HANDSHAKE_THREADS)));
  }

  public boolean enabled() {
    return port >= 0;
  }
}
