package io.fleetbus.hub.api;

import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.hub.consent.ConfirmPolicy;
import io.fleetbus.hub.auth.BearerAuth;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.CallStages;
import io.fleetbus.shared.catalog.Tiers;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hub's HTTP surface: the frontends (WebSocket, MCP, health, metrics, dashboard …), everything under
 * /api/v1 behind the JWT check.
 * Routes only translate HTTP to bus requests; policy lives in the approval and routing verticles.
 */
public final class ApiVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(ApiVerticle.class);
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);
  static final long MAX_BODY_BYTES = 1024 * 1024;
  static final int MAX_HEADER_BYTES = 64 * 1024;
  public static final int MAX_WS_MESSAGE_BYTES = 1024 * 1024;

  private final String host;
  private final int port;
  private final JWTAuth auth;
  private final ToolCatalog catalog;
  private final long callTimeoutMs;
  private final List<Frontend> frontends;
  private final NodeKeyring keyring;
  private final ConfirmPolicy confirm;
  private HttpServer server;
  private CallSubmitter calls;
  private Router root;

  public ApiVerticle(String host, int port, JWTAuth auth, ToolCatalog catalog, long callTimeoutMs) {
    this(host, port, auth, catalog, callTimeoutMs, List.of());
  }

  public ApiVerticle(String host, int port, JWTAuth auth, ToolCatalog catalog, long callTimeoutMs,
                     List<Frontend> frontends) {
    this(host, port, auth, catalog, callTimeoutMs, frontends, new NodeKeyring());
  }

  /** @param keyring the nodes' keys the hub follows: frontends open the output chunks nodes sealed with them */
  public ApiVerticle(String host, int port, JWTAuth auth, ToolCatalog catalog, long callTimeoutMs,
                     List<Frontend> frontends, NodeKeyring keyring) {
    this(host, port, auth, catalog, callTimeoutMs, frontends, keyring, ConfirmPolicy.SECOND_PERSON_ONLY);
  }

  /** @param confirm who confirms tier-3 calls (the hub conf's approvals): shown with the tools */
  public ApiVerticle(String host, int port, JWTAuth auth, ToolCatalog catalog, long callTimeoutMs,
                     List<Frontend> frontends, NodeKeyring keyring, ConfirmPolicy confirm) {
    this.confirm = confirm;
    this.keyring = keyring;
    this.host = host;
    this.port = port;
    this.auth = auth;
    this.catalog = catalog;
    this.callTimeoutMs = callTimeoutMs;
    this.frontends = List.copyOf(frontends);
  }

  /** The root router (tests walk it to check the OpenAPI document against the routes that exist). */
  public Router router() {
    return root;
  }

  /** The port actually bound (differs from the configured one when that was 0). */
  public int actualPort() {
    return server.actualPort();
  }

  @Override
  public Future<?> start() {
    root = Router.router(vertx);
    calls = new CallSubmitter(vertx, catalog, callTimeoutMs, keyring, confirm);

    Router api = Router.router(vertx);
    if (CallStages.ON) {
      api.route().handler(ctx -> {
        ctx.put(CallRoutes.RECEIVED_AT, System.nanoTime());
        ctx.next();
      });
    }
    api.route().handler(new BearerAuth(vertx, auth));
    api.route().handler(BodyHandler.create(false).setBodyLimit(MAX_BODY_BYTES));
    ApiRoutes.bind(api, ApiRoutes.REST, "listNodes").handler(ctx -> answer(ctx, RegistryBus.client(vertx).list()));
    ApiRoutes.bind(api, ApiRoutes.REST, "getNode")
      .handler(ctx -> answer(ctx, RegistryBus.client(vertx).describe(ctx.pathParam("nodeId"))));
    ApiRoutes.bind(api, ApiRoutes.REST, "listTools").handler(this::tools);
    ApiRoutes.bind(api, ApiRoutes.REST, "whoami").handler(ApiVerticle::whoami);
    ApiRoutes.bind(api, ApiRoutes.REST, "updateNodeConfig").handler(this::configUpdate);
    new CallRoutes(calls).mount(api);
    new ApprovalRoutes(vertx).mount(api);
    frontends.forEach(f -> f.mount(vertx, root, calls));
    new NodeAdminRoutes(vertx).mount(api);
    new RevocationRoutes(vertx).mount(api);
    new AuditRoutes(vertx).mount(api);
    StageRoutes.mount(api);
    root.route("/api/v1/*").subRouter(api);
    root.route().failureHandler(HttpErrors::handle);
    root.route().last().handler(ctx -> ctx.fail(404));
    api.route().failureHandler(HttpErrors::handle);

    return vertx.createHttpServer(serverOptions()).requestHandler(root).invalidRequestHandler(HttpErrors::invalidRequest)
      .listen(port, host).onSuccess(s -> {
      server = s;
      LOG.info("api listening [url: http://{}:{}]", host, s.actualPort());
    });
  }

  /**
   * Headers up to 64 KiB reach the routes (so an oversized token gets the JSON 401 of the token rules); past that
   * the decoder refuses the request and {@link HttpErrors#invalidRequest} answers. WebSocket frames up to a
   * message's size, so a too-large first message is answered with an error frame, not a dropped socket.
   */
  private static HttpServerOptions serverOptions() {
    // no h2c upgrade: with the larger header limit the upgraded HTTP/2 connection was refused (GOAWAY) to clients
    // that offer it (java.net.http); browsers never use h2c, and every route here is HTTP/1.1, WebSocket or SSE
    return new HttpServerOptions().setHttp2ClearTextEnabled(false).setMaxHeaderSize(MAX_HEADER_BYTES)
      .setMaxWebSocketFrameSize(MAX_WS_MESSAGE_BYTES).setMaxWebSocketMessageSize(MAX_WS_MESSAGE_BYTES);
  }

  private static void answer(RoutingContext ctx, Future<JsonObject> registryAnswer) {
    registryAnswer
      .onSuccess(body -> CallRoutes.json(ctx, 200, body))
      .onFailure(err -> HttpErrors.fail(ctx, err));
  }

  /** config_update: admins only; the node validates, applies and persists, then the hub records it. */
  private void configUpdate(RoutingContext ctx) {
    Caller caller = Caller.of(ctx);
    if (!caller.roles().contains(Tiers.ADMIN)) {
      HttpErrors.send(ctx, io.fleetbus.shared.bus.FailureCode.FORBIDDEN, "changing a node's settings needs the role 'admin'");
      return;
    }
    JsonObject update;
    try {
      update = RequestBodies.json(ctx);
    } catch (io.fleetbus.shared.bus.FleetException e) {
      HttpErrors.send(ctx, e.code(), e.getMessage());
      return;
    }
    vertx.eventBus().<JsonObject>request(Addresses.HUB_NODE_CONFIG, new JsonObject().put("nodeId", ctx.pathParam("nodeId"))
        .put("update", update).put("by", caller.subject()), new DeliveryOptions(LOCAL).setSendTimeout(15_000))
      .map(Message::body)
      .onSuccess(body -> CallRoutes.json(ctx, 200, body))
      .onFailure(err -> HttpErrors.fail(ctx, err));
  }

  /** The dashboard shows who is signed in and hides what their roles do not allow (an issuer's token has no roles). */
  private static void whoami(RoutingContext ctx) {
    Caller caller = Caller.of(ctx);
    CallRoutes.json(ctx, 200, new JsonObject().put("subject", caller.subject()).put("roles", new JsonArray(caller.roles())));
  }

  private void tools(RoutingContext ctx) {
    int maxTier = Tiers.maxToolTier(Caller.of(ctx).roles());
    JsonArray list = new JsonArray();
    catalog.all().stream().filter(t -> t.tier() <= maxTier).forEach(t -> list.add(calls.describe(t)));
    CallRoutes.json(ctx, 200, new JsonObject().put("tools", list));
  }
}
