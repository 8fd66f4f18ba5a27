package io.fleetbus.hub.fuzz;

import io.fleetbus.hub.api.ApiVerticle;
import io.fleetbus.hub.api.OriginCheck;
import io.fleetbus.hub.api.TokenCheck;
import io.fleetbus.hub.approval.ApprovalSummaries;
import io.fleetbus.hub.approval.ApprovalVerticle;
import io.fleetbus.hub.approval.SqliteApprovalStore;
import io.fleetbus.hub.audit.AuditEntry;
import io.fleetbus.hub.audit.AuditVerticle;
import io.fleetbus.hub.auth.DirectiveSigner;
import io.fleetbus.hub.auth.HubKeys;
import io.fleetbus.hub.bridge.BridgeCallVerticle;
import io.fleetbus.hub.bridge.SockJsBridge;
import io.fleetbus.hub.bridge.TcpBridgeVerticle;
import io.fleetbus.hub.enrollment.HelloAdmission;
import io.fleetbus.hub.enrollment.NodeCredential;
import io.fleetbus.hub.mcp.McpEndpoint;
import io.fleetbus.hub.monitor.HeartbeatMonitorVerticle;
import io.fleetbus.hub.registry.NodeConfigVerticle;
import io.fleetbus.hub.registry.NodeRecord;
import io.fleetbus.hub.registry.RegistryVerticle;
import io.fleetbus.hub.routing.ControlVerticle;
import io.fleetbus.hub.routing.RouterVerticle;
import io.fleetbus.hub.tools.HubToolsVerticle;
import io.fleetbus.hub.ws.WebSocketApi;
import io.fleetbus.hub.ws.WsLimits;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.LocalCodec;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.auth.jwt.JWTAuth;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A hub on a plain (non-clustered) Vert.x: the real API verticle with its WebSocket, MCP and SockJS
 * frontends, the TCP bridge, and the real approval, routing, registry and audit verticles on SQLite in a
 * temp folder. No node ever joins, so every node call ends the way it would for a node id nobody knows.
 * Exceptions that escape a handler on any Vert.x thread are collected for the fuzz tests to fail on.
 */
public final class InProcessHub {
  public final Vertx vertx;
  public final int httpPort;
  public final int tcpPort;
  public final String adminToken;
  public final String viewerToken;
  private final List<Throwable> unhandled = Collections.synchronizedList(new ArrayList<>());

  /** The hub's folder (its keys under keys/, its SQLite file) and its user-token provider. */
  public Path dir;
  public JWTAuth auth;

  /** A token signed by this hub for {@code subject} with {@code roles}, valid ten minutes. */
  public String token(String subject, String... roles) {
    return HubKeys.mint(auth, subject, List.of(roles), 10);
  }

  private InProcessHub(Vertx vertx, int httpPort, int tcpPort, String adminToken, String viewerToken) {
    this.vertx = vertx;
    this.httpPort = httpPort;
    this.tcpPort = tcpPort;
    this.adminToken = adminToken;
    this.viewerToken = viewerToken;
  }

  private Vertx clientVertx;

  /** A WebSocket client on a Vert.x of its own (the caller's side), closed with the hub. */
  public synchronized io.vertx.core.http.WebSocketClient webSocketClient() {
    if (clientVertx == null) {
      clientVertx = Vertx.vertx();
    }
    return clientVertx.createWebSocketClient();
  }

  public void close() throws Exception {
    if (clientVertx != null) {
      clientVertx.close().toCompletionStage().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
  }

  public static InProcessHub start() throws Exception {
    return start(java.util.Map.of());
  }

  /** As above, with some tools' tiers overridden (as conf/hub.json's tierOverrides does). */
  public static InProcessHub start(java.util.Map<String, Integer> tierOverrides) throws Exception {
    Path dir = Files.createTempDirectory("fleetbus-fuzz-hub");
    Path db = dir.resolve("fleetbus.db");
    HubKeys keys = HubKeys.loadOrCreate(dir.resolve("keys"));
    ToolCatalog catalog = ToolCatalog.load().withTierOverrides(new io.vertx.core.json.JsonObject(new java.util.HashMap<String, Object>(tierOverrides)));
    Vertx vertx = Vertx.vertx();
    Codecs.register(vertx);
    LocalCodec.register(vertx, NodeRecord.class);
    LocalCodec.register(vertx, NodeRecord.Snapshot.class);
    LocalCodec.register(vertx, NodeCredential.class);
    LocalCodec.register(vertx, HelloAdmission.class);
    LocalCodec.register(vertx, AuditEntry.class);
    LocalCodec.register(vertx, io.fleetbus.hub.routing.RoutePlan.class);
    LocalCodec.register(vertx, io.fleetbus.hub.approval.Decision.class);
    LocalCodec.register(vertx, io.fleetbus.hub.calls.CallRecord.class);
    JWTAuth auth = keys.jwtAuth(vertx);
    DirectiveSigner signer = keys.directiveSigner(30_000);
    TokenCheck tokens = new TokenCheck(auth);
    OriginCheck origins = new OriginCheck(List.of("http://localhost"));
    int tcpPort;
    try (ServerSocket s = new ServerSocket(0)) {
      tcpPort = s.getLocalPort();
    }
    SqliteApprovalStore store = new SqliteApprovalStore(vertx, db, keys.storeKey());
    ApiVerticle api = new ApiVerticle("127.0.0.1", 0, auth, catalog, 5_000, List.of(
      new WebSocketApi(tokens, origins, new WsLimits(1024 * 1024, 8, 2_000)),
      new McpEndpoint(tokens, origins, 60_000),
      new SockJsBridge(tokens, origins)));
    Future<?> deployed = vertx.deployVerticle(new AuditVerticle(db))
      .compose(v -> vertx.deployVerticle(new HeartbeatMonitorVerticle(3)))
      .compose(v -> vertx.deployVerticle(new RouterVerticle(catalog, 0, signer)))
      .compose(v -> vertx.deployVerticle(new ControlVerticle(signer)))
      .compose(v -> vertx.deployVerticle(new RegistryVerticle(db, 1000)))
      .compose(v -> vertx.deployVerticle(new NodeConfigVerticle()))
      .compose(v -> vertx.deployVerticle(new ApprovalVerticle(catalog, 60_000, store, new ApprovalSummaries(vertx, catalog),
        false)))
      .compose(v -> vertx.deployVerticle(new HubToolsVerticle(catalog)))
      .compose(v -> vertx.deployVerticle(new BridgeCallVerticle(catalog, 5_000)))
      .compose(v -> vertx.deployVerticle(new TcpBridgeVerticle(auth, "127.0.0.1", tcpPort)))
      .compose(v -> vertx.deployVerticle(api));
    deployed.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    InProcessHub hub = new InProcessHub(vertx, api.actualPort(), tcpPort,
      HubKeys.mint(auth, "fuzz-admin", List.of("admin"), 600),
      HubKeys.mint(auth, "fuzz-viewer", List.of("viewer"), 600));
    vertx.exceptionHandler(hub.unhandled::add);
    hub.dir = dir;
    hub.auth = auth;
    return hub;
  }

  /** {@code $ADMIN} and {@code $VIEWER} in fuzzed text become real tokens, so inputs can get past auth. */
  String withTokens(String text) {
    return text.replace("$ADMIN", adminToken).replace("$VIEWER", viewerToken);
  }

  /**
   * Forgets exceptions thrown inside the Vert.x TCP bridge itself (it throws on a frame whose type is
   * missing or unknown, before any fleetbus code runs, and stops reading that connection); true if any.
   */
  boolean dropTcpBridgeLibraryFailures() {
    synchronized (unhandled) {
      return unhandled.removeIf(t -> {
        StackTraceElement[] st = t.getStackTrace();
        boolean inBridge = false;
        for (StackTraceElement e : st) {
          if (e.getClassName().startsWith("io.fleetbus.")) {
            return false;
          }
          inBridge |= e.getClassName().startsWith("io.vertx.ext.eventbus.bridge.tcp.");
        }
        return inBridge;
      });
    }
  }

  /** Fails with the first exception a handler let escape since the last call. */
  void assertNoUnhandled(String input) {
    synchronized (unhandled) {
      if (!unhandled.isEmpty()) {
        Throwable first = unhandled.get(0);
        unhandled.clear();
        throw new AssertionError("a handler threw " + first + " on input: " + input, first);
      }
    }
  }
}
