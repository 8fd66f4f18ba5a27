package io.fleetbus.hub.fuzz;

import io.fleetbus.hub.boot.HubAssembly;
import io.fleetbus.hub.boot.HubMain;
import io.fleetbus.hub.api.ApiVerticle;
import io.fleetbus.hub.auth.HubKeys;
import io.fleetbus.hub.metrics.HubMetrics;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.Codecs;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
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
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A hub on a plain (non-clustered) Vert.x, assembled as a real one is ({@link HubAssembly}: every verticle, in
 * the same order): the API with its OpenAPI, WebSocket, MCP and SockJS frontends, the TCP bridge, and approval,
 * routing, registry, enrollment and audit on SQLite in a temp folder; nothing is shared with other hubs. No node
 * ever joins, so every node call ends the way it would for a node id nobody knows.
 * Exceptions that escape a handler on any Vert.x thread are collected for the fuzz tests to fail on.
 */
public final class InProcessHub implements BeforeAllCallback, AfterAllCallback {
  /** Set when the hub has started (by {@link #start()}, or before a test class's first test for {@link #perClass()}). */
  public Vertx vertx;
  public int httpPort;
  public int tcpPort;
  public String adminToken;
  public String viewerToken;
  private final List<Throwable> unhandled = Collections.synchronizedList(new ArrayList<>());

  /** The hub's folder (its keys under keys/, its SQLite file) and its user-token provider. */
  public Path dir;
  public JWTAuth auth;
  /** What the hub was assembled from (its keyring, router …). */
  public HubAssembly assembly;
  /** The hub's keys (its store key seals the hubs' events). */
  public HubKeys keys;
  /** Set for a hub on a clustered Vert.x: the checks a clustered hub makes on what comes from the cluster. */
  public io.fleetbus.hub.enrollment.VerifiedFacts facts;

  private Vertx clientVertx;
  private io.vertx.core.http.WebSocketClient wsClient;

  /** Merged into the hub's conf before it starts (an {@code auth} section with issuers …). */
  private final JsonObject extraConf;

  private InProcessHub() {
    this(new JsonObject());
  }

  private InProcessHub(JsonObject extraConf) {
    this.extraConf = extraConf;
  }

  /**
   * A hub for one test class, so its tests need no start/stop of their own: register it with
   * {@code @RegisterExtension static final InProcessHub hub = InProcessHub.perClass();}. It starts before the
   * class's {@code @BeforeAll} methods run and is closed after its last test.
   */
  public static InProcessHub perClass() {
    return new InProcessHub();
  }

  /** As {@link #perClass()}, with {@code conf} merged into the hub's conf (deeply). */
  public static InProcessHub perClass(JsonObject conf) {
    return new InProcessHub(conf);
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    boot(java.util.Map.of());
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    close();
  }

  /** A token signed by this hub for {@code subject} with {@code roles}, valid ten minutes. */
  public String token(String subject, String... roles) {
    return HubKeys.mint(auth, subject, List.of(roles), 10);
  }

  /** The WebSocket client of the caller's side (on a Vert.x of its own, one per hub), closed with the hub. */
  public synchronized io.vertx.core.http.WebSocketClient webSocketClient() {
    if (wsClient == null) {
      clientVertx = Vertx.vertx();
      wsClient = clientVertx.createWebSocketClient();
    }
    return wsClient;
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
    InProcessHub hub = new InProcessHub();
    hub.boot(tierOverrides);
    return hub;
  }

  /**
   * A hub on {@code clustered} (a member of a Hazelcast cluster in this JVM), with the checks HubMain installs on what
   * comes from the cluster ({@code enrollment.VerifiedFacts}) before its verticles start.
   */
  public static InProcessHub onCluster(Vertx clustered) throws Exception {
    InProcessHub hub = new InProcessHub();
    hub.vertx = clustered;
    hub.boot(java.util.Map.of());
    return hub;
  }

  private void boot(java.util.Map<String, Integer> tierOverrides) throws Exception {
    dir = Files.createTempDirectory("fleetbus-fuzz-hub");
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
    conf.mergeIn(extraConf, true);
    keys = HubKeys.loadOrCreate(dir.resolve("keys"));
    ToolCatalog catalog = ToolCatalog.load().withTierOverrides(overrides);
    boolean clustered = vertx != null;
    if (!clustered) {
      vertx = Vertx.vertx();
      Codecs.register(vertx); // (a clustered one has them from ClusterLauncher)
    }
    HubAssembly.codecs(vertx);
    auth = keys.jwtAuth(vertx, io.fleetbus.hub.auth.TokenRules.fromConf(conf),
      io.fleetbus.hub.settings.IdentitySettings.fromConf(conf));
    assembly = new HubAssembly(conf, null, keys, catalog, auth, null, new HubMetrics());
    ApiVerticle api = assembly.api(HubMain.frontends(auth, catalog, assembly.frontendSettings()));
    if (clustered) {
      facts = io.fleetbus.hub.enrollment.VerifiedFacts.install(vertx, keys.storeKey(), assembly.keyring())
        .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    assembly.deploy(vertx, api).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    httpPort = api.actualPort();
    adminToken = HubKeys.mint(auth, "fuzz-admin", List.of("admin"), 600);
    viewerToken = HubKeys.mint(auth, "fuzz-viewer", List.of("viewer"), 600);
    vertx.exceptionHandler(unhandled::add);
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

  /** One answer of the hub as a JSON object; an assertion error naming the answer and the input when it is not one. */
  static JsonObject answer(String json, String input) {
    try {
      return new JsonObject(json);
    } catch (DecodeException e) {
      throw new AssertionError("the hub answered with something that is not a JSON object: " + json + "; input: " + input, e);
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
