package io.fleetbus.hub.edge;

import io.fleetbus.hub.cluster.FleetIdentity;
import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.hub.monitor.MonitorService;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.edge.EdgePeer;
import io.fleetbus.shared.edge.TlsWarmUp;
import io.fleetbus.shared.fault.FaultSwitches;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
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
  private final Map<String, EdgeConnection> byNode = new HashMap<>();
  private NetServer server;
  /** Links that have not proved which node they are yet (each may hold one frame of at most 64 KiB in memory). */
  private final java.util.Set<EdgeConnection> unproven = new java.util.HashSet<>();

  /** An endpoint with a keyring of its own: it knows only the keys published after it is deployed (tests). */
  public EdgeEndpointVerticle(EdgeSettings settings, EdgeCertificate certificate, String memberId,
                              FaultSwitches switches) {
    this(settings, certificate, memberId, switches, new NodeKeyring());
  }

  /** @param keyring the hub's keyring, already following the enrollment verticle's key changes */
  public EdgeEndpointVerticle(EdgeSettings settings, EdgeCertificate certificate, String memberId,
                              FaultSwitches switches, NodeKeyring keyring) {
    this.keyring = keyring;
    this.settings = settings;
    this.certificate = certificate;
    this.memberId = memberId;
    this.switches = switches;
  }

  @Override
  public Future<?> start() {
    // handshakes' CPU work on workers; the JVM's first TLS context built on one before the first accept (TlsWarmUp)
    NetServerOptions options = new NetServerOptions().setSsl(true).setSslEngineOptions(TlsWarmUp.engine())
      .setKeyCertOptions(certificate.keyCert()).setIdleTimeout(settings.idleSeconds()).setHost(settings.host())
      .setPort(settings.port());
    server = vertx.createNetServer(options).connectHandler(socket -> {
      String who = socket.remoteAddress() == null ? "?" : socket.remoteAddress().toString();
      if (unproven.size() >= settings.maxUnprovenLinks()) {
        LOG.warn("edge link refused [peer: {}, reason: {} links have not proved which node they are yet; edge"
          + ".maxUnprovenLinks allows more]", who, unproven.size());
        socket.close();
        return;
      }
      EdgePeer peer = new EdgePeer(vertx, socket, "edge " + who, settings.limits());
      EdgeConnection link = new EdgeConnection(vertx, peer, memberId, keyring, this::proven, switches);
      unproven.add(link);
      peer.closed().onComplete(ar -> {
        unproven.remove(link);
        String node = link.nodeId();
        if (node != null && byNode.get(node) == link) {
          byNode.remove(node);
          link.lossAnnounced();
          linkLost(node, ar.result());
        }
      });
      link.start();
    });
    return keyring.follow(vertx).compose(v -> vertx.executeBlocking(TlsWarmUp::once, false))
      .compose(v -> server.listen())
      .onSuccess(s -> {
        // an enrollment answer names them: what an edge node links to and pins
        var fleet = vertx.sharedData().getLocalMap(FleetIdentity.LOCAL_MAP);
        fleet.put("edgeEndpoint", settings.host() + ":" + s.actualPort());
        fleet.put("edgeCertSha256", certificate.sha256());
        LOG.info("edge endpoint listening [address: {}:{}, certSha256: {}]", settings.host(), s.actualPort(),
          certificate.sha256());
      });
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
    return server == null ? Future.succeededFuture() : server.close();
  }
}
