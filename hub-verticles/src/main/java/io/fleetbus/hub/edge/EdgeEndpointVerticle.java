package io.fleetbus.hub.edge;

import io.fleetbus.hub.cluster.FleetIdentity;
import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.hub.monitor.MonitorService;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.edge.EdgePeer;
import io.fleetbus.shared.edge.TlsWarmUp;
import io.fleetbus.shared.fault.FaultSwitches;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hub's edge endpoint (issue 20): machines outside the cluster network keep one TLS connection here instead of
 * joining Hazelcast. Each link is an {@link EdgeConnection}; a node holds one link per hub at most (a newer link for
 * the same node replaces the older, which is closed). Idle links (no frame, not even a ping, for
 * {@link EdgeSettings#idleSeconds()}) are cut by the TLS server. When a node's link closes and no newer one replaced
 * it, the fleet's hubs hear it at once ({@link MonitorService#LINK_LOST}).
 */
public final class EdgeEndpointVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(EdgeEndpointVerticle.class);

  private final EdgeSettings settings;
  private final EdgeCertificate certificate;
  private final String memberId;
  private final FaultSwitches switches;
  /** The hub's keyring, followed before the enrollment verticle loads the credentials (issue 35): complete at once. */
  private final NodeKeyring keyring;
  private final FleetState fleet;
  private final Map<String, EdgeConnection> byNode = new HashMap<>();
  private NetServer server;
  /**
   * Links that have not proved which node they are yet, by the address they come from (each may hold one frame of at
   * most 64 KiB in memory).
   */
  private final Map<EdgeConnection, String> unproven = new HashMap<>();
  private final RefusalLog refusals = new RefusalLog();
  private EdgeTls tls;

  /** An endpoint with a keyring of its own: it knows only the keys published after it is deployed (tests). */
  public EdgeEndpointVerticle(EdgeSettings settings, EdgeCertificate certificate, String memberId,
                              FaultSwitches switches) {
    this(settings, certificate, memberId, switches, new NodeKeyring(), null);
  }

  /**
   * @param keyring the hub's keyring, already following the enrollment verticle's key changes
   * @param fleet   the fleet's shared state (every hub's advertised endpoint); null for a hub that shares nothing
   */
  public EdgeEndpointVerticle(EdgeSettings settings, EdgeCertificate certificate, String memberId,
                              FaultSwitches switches, NodeKeyring keyring, FleetState fleet) {
    this.keyring = keyring;
    this.fleet = fleet;
    this.settings = settings;
    this.certificate = certificate;
    this.memberId = memberId;
    this.switches = switches;
  }

  @Override
  public Future<?> start() {
    // plain TCP: the endpoint adds TLS itself (EdgeTls) once a connection is within the caps, so a refused one costs no
    // handshake (issue 35); the JVM's first TLS context built on a worker before the first accept (TlsWarmUp)
    NetServerOptions options = new NetServerOptions().setIdleTimeout(settings.idleSeconds()).setHost(settings.host())
      .setPort(settings.port());
    server = vertx.createNetServer(options).connectHandler(this::accept);
    return keyring.follow(vertx).compose(v -> vertx.executeBlocking(TlsWarmUp::once, false))
      .compose(v -> EdgeTls.start(vertx, certificate, settings.helloWithinSeconds() * 1000L,
        settings.handshakeThreads())).onSuccess(t -> tls = t)
      .compose(v -> server.listen())
      .compose(s -> vertx.executeBlocking(() -> EdgeAdvertisement.of(settings.advertise(), settings.host(),
        s.actualPort()), false))
      .compose(this::advertise);
  }

  /**
   * A new connection: refused before any TLS when over a cap (counted; logged once per address a minute), else counted
   * as unproven from now (its handshake included), secured, and welcomed once its handshake is done.
   */
  private void accept(NetSocket socket) {
    String from = socket.remoteAddress() == null ? "?" : socket.remoteAddress().hostAddress();
    String refusal = refusal(from);
    if (refusal != null) {
      refusals.refused(from, refusal, System.currentTimeMillis());
      socket.close();
      return;
    }
    tls.secure(socket);
    EdgePeer peer = new EdgePeer(vertx, socket, "edge " + socket.remoteAddress(), settings.limits());
    EdgeConnection link = new EdgeConnection(vertx, peer, memberId, keyring, this::proven, switches);
    unproven.put(link, from);
    peer.closed().onComplete(closed -> linkClosed(link, closed.result()));
    link.start(settings.helloWithinSeconds() * 1000L);
  }

  private void linkClosed(EdgeConnection link, String why) {
    unproven.remove(link);
    String node = link.nodeId();
    if (node != null && byNode.get(node) == link) {
      byNode.remove(node);
      link.lossAnnounced();
      linkLost(node, why);
    }
  }

  /**
   * What an enrollment answer names: this hub's advertised endpoint and every live hub's (asked hub-locally on
   * {@link Addresses#HUB_EDGE_ENDPOINTS}), and the certificate an edge node pins.
   */
  private Future<Void> advertise(String advertised) {
    var local = vertx.sharedData().getLocalMap(FleetIdentity.LOCAL_MAP);
    local.put("edgeEndpoint", advertised);
    local.put("edgeCertSha256", certificate.sha256());
    LOG.info("edge endpoint listening [address: {}:{}, advertised: {}, certSha256: {}]", settings.host(),
      server.actualPort(), advertised, certificate.sha256());
    if (!EdgeAdvertisement.reachableFromOtherMachines(advertised)) {
      LOG.warn("edge endpoint reachable from this machine only [address: {}, reason: it listens on loopback; edge.host"
        + " (0.0.0.0 or a machine address) opens it to edge nodes, edge.advertise names the address they reach]",
        advertised);
    }
    vertx.eventBus().<Object>localConsumer(Addresses.HUB_EDGE_ENDPOINTS, m -> EdgeAdvertisement.all(context, fleet,
      advertised).onComplete(ar -> m.reply(ar.succeeded() ? ar.result() : new JsonArray().add(advertised))));
    return EdgeAdvertisement.publish(context, fleet, memberId, advertised).recover(err -> {
      LOG.warn("edge endpoint not shared with the fleet's hubs [reason: {}]: enrollments through them do not name it",
        err.getMessage());
      return Future.succeededFuture();
    });
  }

  /** Why a new link from {@code from} is refused at once (too many links not proven yet), or null. */
  private String refusal(String from) {
    if (unproven.size() >= settings.maxUnprovenLinks()) {
      return unproven.size() + " links have not proved which node they are yet; edge.maxUnprovenLinks allows more";
    }
    long fromThere = unproven.values().stream().filter(from::equals).count();
    return fromThere < settings.maxUnprovenLinksPerAddress() ? null : fromThere + " links from " + from
      + " have not proved which node they are yet; edge.maxUnprovenLinksPerAddress allows more";
  }

  /** The port the endpoint listens on (0 in the settings: the one the system gave). */
  public int actualPort() {
    return server.actualPort();
  }

  private void proven(EdgeConnection link) {
    unproven.remove(link);
    if (!link.peer().isOpen()) {
      if (!byNode.containsKey(link.nodeId())) {
        linkLost(link.nodeId(), "closed before its hello was answered");
      }
      return;
    }
    EdgeConnection older = byNode.put(link.nodeId(), link);
    if (older != null && older != link) {
      older.peer().close("replaced by a newer link of node " + link.nodeId());
    }
  }

  /**
   * The node's only link to this hub closed without a newer one replacing it (a crash, a cut, a SIGKILL, or after its
   * goodbye): the fleet hears it at once, not three heartbeat intervals later. Every hub's monitor takes the node
   * offline if it still tracks it on this member, and ends its calls in flight; a node that said hello through
   * another hub meanwhile is tracked there and stays online. A hub's own event: it leaves with the fleet's hub proof.
   */
  private void linkLost(String node, String why) {
    LOG.info("edge link lost [node: {}, member: {}, reason: {}]", node, memberId, why);
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", MonitorService.LINK_LOST).put("nodeId", node)
      .put("member", memberId).put("reason", why).put("at", System.currentTimeMillis()));
  }

  @Override
  public Future<?> stop() {
    if (tls != null) {
      tls.close();
    }
    return server == null ? Future.succeededFuture() : server.close();
  }
}
