package io.fleetbus.node.boot;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import io.fleetbus.node.edge.EdgeLinkVerticle;
import io.fleetbus.node.edge.EdgeNodeSettings;
import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.RuntimeConfig;
import io.fleetbus.node.state.NodeBus;
import io.fleetbus.node.tools.ToolDispatcher;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.system.SystemProbe;
import io.fleetbus.node.trust.NodeTrust;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.shared.edge.EdgePeer;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.msg.Codecs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the node in a cluster with a hub. A node is a lite member: when the last hub (data member)
 * dies, the cluster data that lets peers reach the node dies with it, and a lone lite member cannot
 * get it back (a Hazelcast merge would also change its member id under Vert.x). So the supervisor
 * leaves and joins again as a fresh member, retrying with backoff until a hub is there.
 */
public final class NodeSupervisor {
  private static final Logger LOG = LoggerFactory.getLogger(NodeSupervisor.class);
  private static final long MAX_BACKOFF_MS = 30_000;

  private final JsonObject conf;
  private final NodeSettings settings;
  private final RuntimeConfig runtime;
  private final Map<String, ToolHandler> handlers;
  private final SystemProbe probe;
  private final NodeBus bus;
  private final NodeTrust trust;
  private final ToolCatalog catalog;
  // joins and leaves are slow blocking work of their own: one thread runs them in order
  private final ScheduledExecutorService lifecycle = Executors.newSingleThreadScheduledExecutor(r -> {
    // not a daemon: it keeps the JVM alive while no cluster (and so no Vert.x thread) exists
    return new Thread(r, "fleetbus-node-lifecycle");
  });
  private volatile ClusterLauncher.Member current;
  private final io.fleetbus.node.trust.HubMembers hubs;
  private volatile boolean stopped;
  /** Set on an edge node: how it links to its hubs (null on a cluster member). */
  private final EdgeNodeSettings edge;
  private volatile Vertx edgeVertx;
  private volatile String agentDeployment;
  private long backoffMs = 1000;
  /**
   * How long a node stays in a cluster in which no data member is a proven hub of its fleet before it leaves and joins
   * again (issue 32, item 3). A restarting hub joins the cluster some seconds before its signed statement is written
   * (6 s seen on a loaded box): the node waits longer than that.
   */
  static final long HUBLESS_REJOIN_MS = 10_000;
  private volatile java.util.concurrent.ScheduledFuture<?> hubCheck;
  private long hublessSince = -1;

  /** What the kernel lets this node's processes do (Confinement#toJson), told to the hub in every hello. */
  private final JsonObject confinement;

  public NodeSupervisor(JsonObject conf, NodeSettings settings, RuntimeConfig runtime, Map<String, ToolHandler> handlers,
                        SystemProbe probe, NodeBus bus, ToolCatalog catalog, NodeTrust trust, JsonObject confinement,
                        EdgeNodeSettings edge) {
    this.conf = conf;
    this.edge = edge;
    this.confinement = confinement;
    this.settings = settings;
    this.runtime = runtime;
    this.handlers = Map.copyOf(handlers);
    this.probe = probe;
    this.bus = bus;
    this.catalog = catalog;
    this.trust = trust;
    this.hubs = new io.fleetbus.node.trust.HubMembers(trust);
  }

  public void start() {
    lifecycle.execute(edge == null ? this::join : this::link);
  }

  /**
   * An edge node (issue 20): no cluster membership, one Vert.x for the node's life; its {@link EdgeLinkVerticle} keeps
   * the link to a hub (and finds another when one is lost) while the agent's verticles run as on a cluster node.
   */
  private void link() {
    try {
      Vertx vertx = Vertx.vertx();
      Codecs.register(vertx);
      EdgeLinkVerticle link = new EdgeLinkVerticle(edge, settings.nodeId(), EdgePeer.Limits.DEFAULT);
      await(vertx.deployVerticle(link));
      bus.attach(vertx);
      agentDeployment = await(vertx.deployVerticle(new NodeAgentVerticle(settings, runtime,
        new ToolDispatcher(vertx, catalog, handlers, settings), probe, link, bus::hubRegistered, trust, confinement)));
      edgeVertx = vertx;
      LOG.info("edge node agent started [node: {}, tier: {}, hubs: {}]", settings.nodeId(), settings.capabilityTier(),
        edge.hubs());
    } catch (Exception e) {
      LOG.error("edge node agent failed to start [node: {}, reason: {}]", settings.nodeId(), e.getMessage(), e);
      System.exit(1);
    }
  }

  private void join() {
    if (stopped) {
      return;
    }
    try {
      // what the node sends to hubs goes only to members proven to be hubs of its fleet (issue 15)
      ClusterLauncher.Member member = await(ClusterLauncher.start(conf, true, null, null, hubs));
      hubs.follow(member.clusterManager().getHazelcastInstance());
      bus.attach(member.vertx());
      String id = await(member.vertx().deployVerticle(new NodeAgentVerticle(settings, runtime,
        new ToolDispatcher(member.vertx(), catalog, handlers, settings), probe,
        io.fleetbus.node.agent.HubView.of(member.clusterManager().getHazelcastInstance(), () -> busOf(member)), () -> {
          hubs.trustChanged();
          bus.hubRegistered();
        }, trust, confinement)));
      current = member;
      backoffMs = 1000;
      member.clusterManager().getHazelcastInstance().getCluster().addMembershipListener(new LastHubWatcher(member));
      hublessSince = -1;
      if (!FaultSwitch.NO_HUBLESS_REJOIN.on()) {
        hubCheck = lifecycle.scheduleWithFixedDelay(() -> checkProvenHub(member), 1, 1, TimeUnit.SECONDS);
      }
      LOG.info("node agent started [node: {}, tier: {}, cluster: {}, deployment: {}]", settings.nodeId(),
        settings.capabilityTier(), member.clusterManager().getHazelcastInstance().getConfig().getClusterName(), id);
    } catch (Exception e) {
      // one line per try (HublessNoise keeps Hazelcast's and Vert.x's stack traces of the same failure out)
      LOG.warn("cannot join a cluster with a hub yet, retrying in {} ms [node: {}, reason: {}]", backoffMs,
        settings.nodeId(), HublessNoise.reason(e));
      lifecycle.schedule(this::join, backoffMs, TimeUnit.MILLISECONDS);
      backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
    }
  }

  /**
   * Issue 32, item 3: the last data member need not be a hub. A keyless data member present while the only hub
   * restarted kept this node in a cluster of its own (the hub formed another), and after the clusters merged the node
   * (its member id reset) no longer knew which member is a hub: its hellos went nowhere for as long as it ran, the rogue
   * gone or not. So when no data member has been a proven hub of the fleet for {@link #HUBLESS_REJOIN_MS}, the node
   * leaves and joins again (its members list leads it to the hubs; a new member reads the hubs' list anew).
   */
  private void checkProvenHub(ClusterLauncher.Member member) {
    if (stopped || current != member) {
      return;
    }
    java.util.List<String> dataMembers;
    try {
      dataMembers = member.clusterManager().getHazelcastInstance().getCluster().getMembers().stream()
        .filter(m -> !m.isLiteMember()).map(m -> m.getUuid().toString()).toList();
    } catch (RuntimeException e) {
      return; // the member is going down: the last-hub watch or stop() takes it from here
    }
    long now = System.currentTimeMillis();
    if (dataMembers.isEmpty() || hubs.anyProven(dataMembers)) {
      hublessSince = -1;
    } else if (hublessSince < 0) {
      hublessSince = now;
    } else if (now - hublessSince >= HUBLESS_REJOIN_MS) {
      rejoin(member, "no data member of the cluster has been a proven hub of this fleet for " + (now - hublessSince)
        + " ms (data members: " + dataMembers + ")");
    }
  }

  private void rejoin(ClusterLauncher.Member lost, String why) {
    if (stopped || current != lost) {
      return;
    }
    LOG.warn("{}: leaving and joining again as a new member [node: {}]", why, settings.nodeId());
    var check = hubCheck;
    if (check != null) {
      check.cancel(false);
    }
    current = null;
    bus.detach();
    leave(lost);
    join();
  }

  private static void leave(ClusterLauncher.Member member) {
    try {
      member.vertx().close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("leaving the cluster did not finish cleanly ({}); terminating the member", e.toString());
      member.clusterManager().getHazelcastInstance().getLifecycleService().terminate();
    }
  }

  /** Stops the node (shutdown hook): a clean leave, with a goodbye to the hub. */
  public void stop() {
    stopped = true;
    Vertx edgeNode = edgeVertx;
    if (edgeNode != null) {
      // the agent first: its goodbye leaves through the link, which goes down with the rest
      try {
        edgeNode.undeploy(agentDeployment).eventually(edgeNode::close).toCompletionStage().toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("edge node did not stop cleanly [reason: {}]", e.toString());
      }
    }
    ClusterLauncher.Member member = current;
    bus.detach();
    if (member != null) {
      leave(member);
    }
    lifecycle.shutdownNow();
  }

  /** Where the member's event bus listens, {@code host:port} (its own, not what the cluster's registry says). */
  private static String busOf(ClusterLauncher.Member member) {
    io.vertx.core.spi.cluster.NodeInfo info = member.clusterManager().getNodeInfo();
    return info == null ? null : info.host() + ":" + info.port();
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
  }

  private final class LastHubWatcher implements MembershipListener {
    private final ClusterLauncher.Member member;
    private final AtomicBoolean fired = new AtomicBoolean();

    LastHubWatcher(ClusterLauncher.Member member) {
      this.member = member;
    }

    @Override
    public void memberAdded(MembershipEvent event) {
      // the agent says hello to a new hub itself
    }

    @Override
    public void memberRemoved(MembershipEvent event) {
      boolean hubLeft = event.getMembers().stream().noneMatch(m -> !m.isLiteMember());
      if (hubLeft && !event.getMember().isLiteMember() && fired.compareAndSet(false, true)) {
        lifecycle.execute(() -> rejoin(member, "the last hub left the cluster"));
      }
    }
  }

}
