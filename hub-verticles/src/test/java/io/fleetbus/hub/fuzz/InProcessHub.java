package io.fleetbus.hub.fuzz;

import io.fleetbus.hub.HubAssembly;
import io.fleetbus.hub.HubMain;
import io.fleetbus.hub.api.ApiVerticle;
import io.fleetbus.hub.auth.HubKeys;
import io.fleetbus.hub.metrics.HubMetrics;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.Codecs;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.jwt.JWTAuth;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A hub on a plain (non-clustered) Vert.x, assembled as a real one is ({@link HubAssembly}: every verticle, in
 * the same order): the API with its OpenAPI, WebSocket, MCP and SockJS frontends, the TCP bridge, and approval,
 * routing, registry, enrollment and audit on SQLite in a temp folder; nothing is shared with other hubs. No node
 * ever joins, so every node call ends the way it would for a node id nobody knows.
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
    int tcpPort;
    try (ServerSocket s = new ServerSocket(0)) {
      tcpPort = s.getLocalPort();
    }
    JsonObject overrides = new JsonObject(new java.util.HashMap<String, Object>(tierOverrides));
    // the hub's conf as conf/hub.json would say it: short timeouts, any free port, the TCP bridge on
    JsonObject conf = new JsonObject().put("dataDir", dir.toString())
      .put("http", new JsonObject().put("host", "127.0.0.1").put("port", 0))
      .put("callTimeoutMs", 5_000).put("approvalTtlMs", 60_000).put("noHandlersRetryMs", 0)
      .put("heartbeatIntervalMs", 1000).put("tierOverrides", overrides)
      .put("frontends", new JsonObject().put("allowedOrigins", new JsonArray().add("http://localhost"))
        .put("ws", new JsonObject().put("maxQueuedBytes", 1024 * 1024).put("maxCallsInFlight", 8))
        .put("mcp", new JsonObject().put("sessionIdleMinutes", 1))
        .put("tcpBridge", new JsonObject().put("host", "127.0.0.1").put("port", tcpPort)));
    HubKeys keys = HubKeys.loadOrCreate(dir.resolve("keys"));
    ToolCatalog catalog = ToolCatalog.load().withTierOverrides(overrides);
    Vertx vertx = Vertx.vertx();
    Codecs.register(vertx);
    HubAssembly.codecs(vertx);
    JWTAuth auth = keys.jwtAuth(vertx);
    HubAssembly assembly = new HubAssembly(conf, null, keys, catalog, auth, null, new HubMetrics());
    ApiVerticle api = assembly.api(HubMain.frontends(auth, catalog, assembly.frontendSettings()));
    assembly.deploy(vertx, api).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
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
