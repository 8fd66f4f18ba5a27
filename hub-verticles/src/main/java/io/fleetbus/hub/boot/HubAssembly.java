package io.fleetbus.hub.boot;

import io.fleetbus.hub.api.ApiVerticle;
import io.fleetbus.hub.api.Frontend;
import io.fleetbus.hub.approval.ApprovalSummaries;
import io.fleetbus.hub.approval.ApprovalVerticle;
import io.fleetbus.hub.consent.ConfirmPolicy;
import io.fleetbus.hub.approval.Decision;
import io.fleetbus.hub.approval.SqliteApprovalStore;
import io.fleetbus.hub.audit.AuditEntry;
import io.fleetbus.hub.audit.AuditSettings;
import io.fleetbus.hub.audit.AuditVerticle;
import io.fleetbus.hub.auth.DirectiveSigner;
import io.fleetbus.hub.auth.HubKeys;
import io.fleetbus.hub.auth.TokenRules;
import io.fleetbus.hub.auth.TrustSettings;
import io.fleetbus.hub.auth.UserTokens;
import io.fleetbus.hub.bridge.BridgeCallVerticle;
import io.fleetbus.hub.bridge.TcpBridgeLimits;
import io.fleetbus.hub.bridge.TcpBridgeVerticle;
import io.fleetbus.hub.calls.CallRecord;
import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.config.HubConfigVerticle;
import io.fleetbus.hub.edge.EdgeCertificate;
import io.fleetbus.hub.edge.EdgeEndpointVerticle;
import io.fleetbus.hub.edge.EdgeSettings;
import io.fleetbus.hub.enrollment.EnrollmentVerticle;
import io.fleetbus.hub.enrollment.HelloAdmission;
import io.fleetbus.hub.enrollment.NodeCredential;
import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.hub.metrics.CallLogVerticle;
import io.fleetbus.hub.metrics.FleetMeters;
import io.fleetbus.hub.metrics.FleetMetricsVerticle;
import io.fleetbus.hub.metrics.HubMetrics;
import io.fleetbus.hub.monitor.HeartbeatMonitorVerticle;
import io.fleetbus.hub.registry.NodeConfigVerticle;
import io.fleetbus.hub.registry.NodeRecord;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.hub.registry.NodeView;
import io.fleetbus.hub.registry.RegistryVerticle;
import io.fleetbus.hub.revocation.RevocationVerticle;
import io.fleetbus.hub.routing.ControlVerticle;
import io.fleetbus.hub.routing.RoutePlan;
import io.fleetbus.hub.routing.RouterVerticle;
import io.fleetbus.hub.settings.FrontendSettings;
import io.fleetbus.hub.settings.HubSettings;
import io.fleetbus.hub.tools.HubToolsVerticle;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.fault.FaultSwitches;
import io.fleetbus.shared.msg.LocalCodec;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.jwt.JWTAuth;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The hub's verticles, built from its conf and deployed in the one order that works: whoever publishes to or asks
 * another verticle deploys after it, and the API (the way in) last. {@link HubMain} assembles a clustered hub with it
 * and the tests' in-process hub a plain one, so the two cannot drift apart; what only a cluster has (verified facts,
 * intruder watch, readiness, dev tokens) stays in HubMain.
 */
public final class HubAssembly {
  private final JsonObject conf;
  /** The conf file to watch for live settings, when there is one. */
  private final Path watchedConf;
  private final HubSettings settings;
  private final TrustSettings trust;
  private final FrontendSettings fronts;
  private final HubKeys keys;
  private final ToolCatalog catalog;
  private final JWTAuth auth;
  private final FleetState fleet;
  private final HubMetrics metrics;
  private final DirectiveSigner signer;
  /** The nodes' keys, followed before any node can say hello: checks proofs, opens sealed output. */
  private final NodeKeyring keyring = new NodeKeyring();
  /** The registry's nodes as the router reads them on each call (no request to the registry verticle). */
  private final NodeView nodes = new NodeView();
  /** Who confirms a tier-3 call: the requester (MCP elicitation) or a second person, by tool and node label. */
  private final ConfirmPolicy confirm;
  private final HeartbeatMonitorVerticle monitor;
  private final RouterVerticle router;

  /**
   * @param confFile the conf file to watch for live settings; null (or missing) when there is none
   * @param fleet    the state shared with the fleet's other hubs; null for a hub that shares nothing
   */
  public HubAssembly(JsonObject conf, Path confFile, HubKeys keys, ToolCatalog catalog, JWTAuth auth, FleetState fleet,
                     HubMetrics metrics) {
    this.conf = conf;
    this.watchedConf = confFile != null && Files.exists(confFile) ? confFile : null;
    this.settings = HubSettings.fromConf(conf);
    this.trust = TrustSettings.fromConf(conf, settings.dataDir());
    this.fronts = FrontendSettings.fromConf(conf, settings);
    this.keys = keys;
    this.catalog = catalog;
    this.auth = auth;
    this.fleet = fleet;
    this.metrics = metrics;
    this.signer = keys.directiveSigner(trust.directiveTtlMs());
    this.confirm = ConfirmPolicy.fromConf(conf.getJsonObject("approvals"));
    this.monitor = new HeartbeatMonitorVerticle(settings.missedHeartbeats());
    this.router = new RouterVerticle(catalog, settings.noHandlersRetryMs(), signer, nodes);
  }

  /** The records that travel between the hub's verticles by reference: registered once per Vert.x, before deploy. */
  public static void codecs(Vertx vertx) {
    for (Class<?> type : List.of(NodeRecord.class, NodeCredential.class,
      HelloAdmission.class, AuditEntry.class, RoutePlan.class, Decision.class, CallRecord.class)) {
      LocalCodec.register(vertx, type);
    }
  }

  public FrontendSettings frontendSettings() {
    return fronts;
  }

  public NodeKeyring keyring() {
    return keyring;
  }

  public RouterVerticle router() {
    return router;
  }

  public HeartbeatMonitorVerticle monitor() {
    return monitor;
  }

  /** The API verticle serving {@code frontends} besides REST (deployed last by {@link #deploy}). */
  public ApiVerticle api(List<Frontend> frontends) {
    return new ApiVerticle(settings.host(), settings.httpPort(), auth, catalog, settings.callTimeoutMs(), frontends,
      keyring, confirm);
  }

  /** Deploys every verticle of the hub in order, {@code api} last; fails with the first that does not start. */
  public Future<Void> deploy(Vertx vertx, ApiVerticle api) {
    Path db = settings.dataDir().resolve("fleetbus.db");
    // the keyring hears every credential the enrollment verticle loads (the edge endpoint, deployed last, checks the
    // nodes' proofs with it: with a keyring of its own it knew only the credentials changed after its start)
    return keyring.follow(vertx).compose(v -> vertx.deployVerticle(new AuditVerticle(db, AuditSettings.fromConf(conf))))
      .compose(v -> vertx.deployVerticle(revocations(db)))
      .compose(v -> vertx.deployVerticle(monitor))
      .compose(v -> vertx.deployVerticle(router))
      .compose(v -> vertx.deployVerticle(new ControlVerticle(signer)))
      .compose(v -> vertx.deployVerticle(new EnrollmentVerticle(db, settings.dataDir(), keys.directivePublicPem(), trust,
        fleet, RegistryBus.client(vertx)::forget)))
      .compose(v -> vertx.deployVerticle(new RegistryVerticle(db, settings.heartbeatIntervalMs(), fleet,
        settings.lastHeartbeatSaveMs(), nodes)))
      .compose(v -> vertx.deployVerticle(new NodeConfigVerticle()))
      .compose(v -> vertx.executeBlocking(() -> new SqliteApprovalStore(vertx, db, keys.storeKey())))
      .compose(store -> vertx.deployVerticle(new ApprovalVerticle(catalog, settings.approvalTtlMs(), store,
        new ApprovalSummaries(vertx, catalog), trust.allowSelfApproval(), confirm, fleet)))
      .compose(v -> vertx.deployVerticle(new FleetMetricsVerticle(new FleetMeters(metrics.registry(),
        monitor::heartbeatsReceived, monitor::heartbeatsDropped))))
      .compose(v -> vertx.deployVerticle(new CallLogVerticle()))
      .compose(v -> vertx.deployVerticle(new HubToolsVerticle(catalog)))
      .compose(v -> vertx.deployVerticle(new BridgeCallVerticle(catalog, settings.callTimeoutMs())))
      .compose(v -> fronts.tcpBridgeEnabled()
        ? vertx.deployVerticle(new TcpBridgeVerticle(auth, fronts.tcpBridgeHost(), fronts.tcpBridgePort(),
          TcpBridgeLimits.fromConf(conf)))
        : Future.succeededFuture())
      .compose(v -> edge(vertx))
      .compose(v -> watchedConf != null
        ? vertx.deployVerticle(new HubConfigVerticle(watchedConf, catalog, conf.getLong("configScanMs", 1000L)))
        : Future.succeededFuture())
      .compose(v -> vertx.deployVerticle(api))
      .mapEmpty();
  }

  /** Revoked user tokens: kept as long as the tokens they revoke could still be valid. */
  private RevocationVerticle revocations(Path db) {
    TokenRules rules = auth instanceof UserTokens u ? u.rules() : TokenRules.DEFAULT;
    return new RevocationVerticle(db, UserTokens.revocationsOf(auth), rules.maxLifetime().plus(rules.skew()), fleet);
  }

  /** The edge endpoint (issue 20), when the conf opens one: machines outside the cluster network link in here. */
  private Future<?> edge(Vertx vertx) {
    EdgeSettings edge = EdgeSettings.fromConf(conf, settings.host());
    if (!edge.enabled()) {
      return Future.succeededFuture();
    }
    String memberId = fleet == null ? "local" : fleet.localMemberId();
    return vertx.executeBlocking(() -> EdgeCertificate.loadOrCreate(trust.keysDir(), "hub-" + memberId))
      .compose(cert -> vertx.deployVerticle(new EdgeEndpointVerticle(edge, cert, memberId, FaultSwitches.active(),
        keyring, fleet)));
  }
}
