package io.fleetbus.hub.boot;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import io.fleetbus.hub.api.ApiVerticle;
import io.fleetbus.hub.api.Frontend;
import io.fleetbus.hub.api.OriginCheck;
import io.fleetbus.hub.api.TokenCheck;
import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.hub.auth.DirectiveSigner;
import io.fleetbus.hub.auth.HubKeys;
import io.fleetbus.hub.auth.TokenRules;
import io.fleetbus.hub.auth.TrustSettings;
import io.fleetbus.hub.auth.UserTokens;
import io.fleetbus.hub.bridge.SockJsBridge;
import io.fleetbus.hub.cli.FleetbusCli;
import io.fleetbus.hub.cluster.FleetIdentity;
import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.cluster.IntruderWatch;
import io.fleetbus.hub.cluster.SplitWatch;
import io.fleetbus.hub.enrollment.VerifiedFacts;
import io.fleetbus.hub.dashboard.DashboardLogin;
import io.fleetbus.hub.dashboard.DashboardRoutes;
import io.fleetbus.hub.health.HealthRoutes;
import io.fleetbus.hub.health.HubReadiness;
import io.fleetbus.hub.mcp.McpEndpoint;
import io.fleetbus.hub.mcp.ResourceMetadata;
import io.fleetbus.hub.metrics.HubMetrics;
import io.fleetbus.hub.monitor.MonitorBus;
import io.fleetbus.hub.openapi.OpenApiEndpoint;
import io.fleetbus.hub.routing.RouterVerticle;
import io.fleetbus.hub.settings.FrontendSettings;
import io.fleetbus.hub.settings.HubSettings;
import io.fleetbus.hub.settings.IdentitySettings;
import io.fleetbus.hub.ws.WebSocketApi;
import io.fleetbus.hub.ws.WsLimits;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.shared.cluster.ConfFiles;
import io.fleetbus.shared.cluster.MemberPins;
import io.fleetbus.shared.fault.FaultSwitches;
import io.fleetbus.shared.files.AtomicFiles;
import io.fleetbus.shared.files.PrivateMarker;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.jwt.JWTAuth;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a hub: {@code java -jar hub.jar -conf conf/hub.json}. Logs {@code api: <url>} when ready and
 * writes dev tokens to {@code <dataDir>/dev-token} (admin) and {@code <dataDir>/dev-approver-token}
 * (a second person who may approve the first one's tier-3 calls), owner-only — never to the log.
 */
public final class HubMain {
  private static final Logger LOG = LoggerFactory.getLogger(HubMain.class);

  private HubMain() {
  }

  /** A running hub, for launchers and tests in the same JVM. */
  public record Running(Vertx vertx, int httpPort, JWTAuth auth) {
  }

  public static void main(String[] args) {
    if (args.length > 0 && "cli".equals(args[0])) {
      System.exit(FleetbusCli.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
    }
    try {
      JsonObject conf = ConfFiles.load(args, "conf/hub.json");
      start(conf, ConfFiles.path(args, "conf/hub.json")).onSuccess(hub -> Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          hub.vertx().close().toCompletionStage().toCompletableFuture().get(5, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
          LOG.warn("hub did not stop cleanly within 5 s: {}", e.toString());
        }
      }, "fleetbus-hub-stop"))).onFailure(err -> {
        LOG.error("hub failed to start: {}", err.getMessage(), err);
        System.exit(1);
      });
    } catch (FaultSwitches.Refused e) {
      LOG.error("hub failed to start: {}", e.getMessage());
      System.exit(1);
    } catch (Exception e) {
      LOG.error("hub failed to start: {}", e.getMessage(), e);
      System.exit(1);
    }
  }

  /** Tells the monitor when a cluster member leaves, so a killed node is offline in about a second. */
  private static void watchMembers(ClusterLauncher.Member member) {
    member.clusterManager().getHazelcastInstance().getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {
        // a node announces itself with its hello
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
        MonitorBus.client(member.vertx()).memberLeft(event.getMember().getUuid().toString());
      }
    });
  }

  /** What the hub serves beside REST; each goes through the same submit path ({@code CallSubmitter}). */
  public static List<Frontend> frontends(JWTAuth auth, ToolCatalog catalog, FrontendSettings fronts) {
    TokenCheck tokens = new TokenCheck(auth);
    OriginCheck origins = new OriginCheck(fronts.allowedOrigins());
    ResourceMetadata metadata = new ResourceMetadata(fronts.identity());
    return List.of(
      new OpenApiEndpoint(catalog),
      new WebSocketApi(tokens, origins, new WsLimits(fronts.wsMaxQueuedBytes(), fronts.wsMaxCallsInFlight(), 10_000,
        fronts.wsMaxUnauthenticatedSockets())),
      new McpEndpoint(tokens, origins, fronts.mcpSessionIdleMs(), metadata),
      metadata,
      new DashboardLogin(fronts.identity(), tokens, origins),
      new SockJsBridge(tokens, origins, fronts.sockJs()));
  }

  /** A route the OpenAPI table describes but no frontend serves: the hub does not start (docs/api.md). */
  private static Future<Void> everyDescribedRouteServed(ApiVerticle api) {
    List<String> unserved = ApiRoutes.unserved(api.router());
    return unserved.isEmpty() ? Future.succeededFuture() : Future.failedFuture(new IllegalStateException(
      "routes described in ApiRoutes but served by no frontend: " + unserved));
  }

  /** What operators use beside the API: /health and /ready, /metrics, and the dashboard at /. */
  public static List<Frontend> opsFrontends(HubMetrics metrics, HubReadiness readiness) {
    return List.of(new HealthRoutes(readiness), metrics, new DashboardRoutes());
  }

  public static Future<Running> start(JsonObject conf) throws Exception {
    return start(conf, null);
  }

  /**
   * The hub's event loops when its conf names none ({@code FLEETBUS_EVENT_LOOPS} still wins): one on a machine of 2
   * cores or fewer, Vert.x's default (2 × cores) above. A call crosses the API, approval, router and audit verticles,
   * one instance each; on one loop it changes threads less. Measured on 2 cores (issue 17, {@code scripts/bench.sh
   * --phases fleet}): the 1-in-flight call 0.98 against 1.27 ms, 32 connections 2,199 against 2,007 calls/s, hub CPU
   * per call 0.54 against 0.66 ms. Bigger machines keep the default, which was not measured against one loop.
   */
  static JsonObject withEventLoopDefault(JsonObject conf, int cores) {
    if (conf.containsKey("eventLoops") || cores > 2) {
      return conf;
    }
    return conf.copy().put("eventLoops", 1);
  }

  /** As above; {@code confFile} (when it exists) is watched and its live settings reloaded. */
  public static Future<Running> start(JsonObject conf, java.nio.file.Path confFile) throws Exception {
    // read once, before anything else: a security switch outside a test run stops the hub here, naming it
    FaultSwitches switches = FaultSwitches.active().refuseOutsideTests("hub").log(LOG, "hub");
    HubSettings settings = HubSettings.fromConf(conf);
    // checked before the cluster is joined: a wrong auth.issuers entry stops the hub here, naming the key
    IdentitySettings issuers = IdentitySettings.fromConf(conf);
    AtomicFiles.privateDir(settings.dataDir());
    TrustSettings trust = TrustSettings.fromConf(conf, settings.dataDir());
    HubKeys keys = HubKeys.loadOrCreate(trust.keysDir());
    // a node on this machine (the embedded default's local node) never reaches either folder: see PrivateMarker
    PrivateMarker.mark(settings.dataDir(), "hub data folder");
    PrivateMarker.mark(trust.keysDir(), "hub key folder");
    ToolCatalog catalog = ToolCatalog.load().withTierOverrides(settings.tierOverrides());
    HubMetrics metrics = new HubMetrics();
    metrics.show(switches);
    FleetIdentity identity = FleetIdentity.loadOrCreate(trust.keysDir());
    // the fleet's own cluster name unless one is configured; another fleet's hub in the cluster stops this one here,
    // before it reads or writes any of the fleet's shared state
    MemberPins pins = new MemberPins();
    JsonObject clusterConf = withEventLoopDefault(identity.withDefaultClusterName(conf),
      Runtime.getRuntime().availableProcessors());
    return ClusterLauncher.start(clusterConf, false, metrics.options(), metrics.factory(), pins)
      // (a refusal ends the process: main logs it and exits, and Hazelcast leaves the cluster on the way out)
      .compose(member -> member.vertx().executeBlocking(() -> {
        identity.claim(member.vertx(), member.clusterManager().getHazelcastInstance(),
          keys.directiveSigner(trust.directiveTtlMs()));
        return member;
      }))
      .compose(member -> {
      Vertx vertx = member.vertx();
      HubAssembly.codecs(vertx);
      UserTokens auth = keys.jwtAuth(vertx, TokenRules.fromConf(conf), issuers);
      long devTtl = Math.min(settings.devTokenTtlMinutes(), auth.rules().maxLifetime().toMinutes());
      FleetState fleet = new FleetState(member.clusterManager().getHazelcastInstance(), keys.storeKey());
      DirectiveSigner signer = keys.directiveSigner(trust.directiveTtlMs());
      SplitWatch split = new SplitWatch(vertx, member.clusterManager().getHazelcastInstance(), signer).start();
      HubAssembly hub = new HubAssembly(conf, confFile, keys, catalog, auth, fleet, metrics);
      AtomicBoolean deployed = new AtomicBoolean();
      List<Frontend> served = new java.util.ArrayList<>(frontends(auth, catalog, hub.frontendSettings()));
      served.addAll(opsFrontends(metrics, new HubReadiness(member.clusterManager(), deployed::get,
        switches, split::state)));
      ApiVerticle api = hub.api(served);
      // before any verticle listens: frontends, monitor and logs hear only proven heartbeats and events
      return VerifiedFacts.install(vertx, keys.storeKey(), hub.keyring())
        .compose(facts -> {
          // what a cluster member sent without the proof it needed (issue 15): forged facts, answers in a node's place
          io.micrometer.core.instrument.FunctionCounter.builder("fleetbus.unproven.dropped", facts, VerifiedFacts::dropped)
            .tag("what", "heartbeat_or_event").register(metrics.registry());
          io.micrometer.core.instrument.FunctionCounter.builder("fleetbus.unproven.dropped", hub.router(),
            RouterVerticle::answersDropped).tag("what", "call_answer").register(metrics.registry());
          IntruderWatch intruders = new IntruderWatch(vertx, member.clusterManager().getHazelcastInstance(),
            identity, signer, pins);
          intruders.start();
          io.micrometer.core.instrument.FunctionCounter.builder("fleetbus.cluster.intruders", intruders,
            IntruderWatch::intrudersSeen).register(metrics.registry());
          io.micrometer.core.instrument.Gauge.builder("fleetbus.cluster.hubs.lost", split, SplitWatch::lostHubs)
            .register(metrics.registry());
          vertx.eventBus().<Object>localConsumer(Addresses.HUB_CLUSTER, m -> vertx.executeBlocking(
              () -> intruders.snapshot().put("split", split.state()))
            .onSuccess(m::reply).onFailure(err -> m.fail(500, "cluster view failed: " + err.getMessage())));
          return hub.deploy(vertx, api);
        })
        .compose(v -> everyDescribedRouteServed(api))
        .compose(v -> vertx.executeBlocking(() -> {
          String token = HubKeys.mint(auth, "dev-admin", List.of("admin", "approver"), devTtl);
          AtomicFiles.writePrivate(settings.dataDir().resolve("dev-token"), token + "\n");
          String approver = HubKeys.mint(auth, "dev-approver", List.of("approver"), devTtl);
          AtomicFiles.writePrivate(settings.dataDir().resolve("dev-approver-token"), approver + "\n");
          return new Running(vertx, api.actualPort(), auth);
        }))
        .onSuccess(r -> {
          deployed.set(true);
          watchMembers(member);
          LOG.info("hub ready [cluster: {}, fleet: {}, data: {}]",
            member.clusterManager().getHazelcastInstance().getConfig().getClusterName(), identity.fleetId(),
            settings.dataDir());
          LOG.info("api: http://{}:{}", settings.host(), r.httpPort());
        });
    });
  }
}
