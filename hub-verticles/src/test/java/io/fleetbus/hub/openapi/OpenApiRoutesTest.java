package io.fleetbus.hub.openapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.settings.FrontendSettings;
import io.fleetbus.hub.boot.HubMain;
import io.fleetbus.hub.settings.HubSettings;
import io.fleetbus.hub.api.ApiVerticle;
import io.fleetbus.hub.api.Frontend;
import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.hub.auth.HubKeys;
import io.fleetbus.hub.bridge.SockJsBridge;
import io.fleetbus.hub.health.HubReadiness;
import io.fleetbus.hub.metrics.HubMetrics;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.fault.FaultSwitches;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The OpenAPI document and the hub's real router describe the same routes, in both directions. */
@Timeout(60)
class OpenApiRoutesTest {

  @Test
  void everyRouteIsDescribedAndEveryDescribedRouteExists() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      Path data = Files.createTempDirectory("fleetbus-openapi");
      JWTAuth auth = HubKeys.loadOrCreate(data.resolve("keys")).jwtAuth(vertx);
      ToolCatalog catalog = ToolCatalog.load();
      JsonObject conf = new JsonObject().put("http", new JsonObject().put("port", 0)).put("dataDir", data.toString());
      FrontendSettings fronts = FrontendSettings.fromConf(conf, HubSettings.fromConf(conf));
      List<Frontend> frontends = new ArrayList<>(HubMain.frontends(auth, catalog, fronts));
      frontends.addAll(HubMain.opsFrontends(new HubMetrics(), new HubReadiness(null, () -> false, FaultSwitches.none())));
      ApiVerticle api = new ApiVerticle("127.0.0.1", 0, auth, catalog, 30_000, frontends);
      vertx.deployVerticle(api).toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);

      Set<String> registered = new TreeSet<>();
      walk(api.router(), "", registered);
      JsonObject served = fetch(api.actualPort());
      Set<String> described = new TreeSet<>();
      served.getJsonObject("paths").forEach(p -> ((JsonObject) p.getValue()).fieldNames()
        .forEach(m -> described.add(m.toUpperCase(Locale.ROOT) + " " + p.getKey())));

      assertEquals("3.1.0", served.getString("openapi"));
      assertFalse(registered.isEmpty());
      // SockJS serves its transports itself (not router routes): the two documented ones must answer instead
      assertTrue(described.containsAll(ApiRoutes.SOCKJS_DESCRIBED), described.toString());
      described.removeAll(ApiRoutes.SOCKJS_DESCRIBED);
      assertEquals(described, registered, "OpenAPI paths and router routes differ");
      assertEquals(List.of(), ApiRoutes.unserved(api.router()), "the hub's own start check agrees");
      assertEquals(200, get(api.actualPort(), SockJsBridge.PATH + "/info").statusCode());
      JsonObject schemas = served.getJsonObject("components").getJsonObject("schemas");
      catalog.all().forEach(t -> assertNotNull(schemas.getJsonObject("Args_" + t.name()), "no argument schema for " + t.name()));
      JsonObject paths = served.getJsonObject("paths");
      String nodeTools = paths.getJsonObject("/api/v1/nodes/{nodeId}/tools/{tool}").getJsonObject("post")
        .getJsonArray("parameters").encode();
      String hubTools = paths.getJsonObject("/api/v1/tools/{tool}").getJsonObject("post").getJsonArray("parameters").encode();
      assertTrue(nodeTools.contains("\"run_command\"") && !nodeTools.contains("\"list_nodes\""), nodeTools);
      assertTrue(hubTools.contains("\"list_nodes\"") && !hubTools.contains("\"run_command\""), hubTools);
      assertEquals("http://127.0.0.1:" + api.actualPort(), served.getJsonArray("servers").getJsonObject(0).getString("url"),
        "servers names the address the document was asked at");
      assertFalse(served.encode().contains("__absolute_uri__"), "no validator annotation is published");
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aRouteIsMountedOnlyByTheIdItIsDescribedBy() {
    Vertx vertx = Vertx.vertx();
    try {
      Router root = Router.router(vertx);
      Router api = Router.router(vertx);
      IllegalArgumentException unknown = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> ApiRoutes.bind(api, ApiRoutes.REST, "rebootNode"));
      assertEquals("no route 'rebootNode' is described under '/api/v1/': describe it in ApiRoutes first",
        unknown.getMessage());
      org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> ApiRoutes.bind(root,
        ApiRoutes.REST, "health"), "a root route is not mounted on the REST router");
      ApiRoutes.bind(api, ApiRoutes.REST, "getNode").handler(ctx -> ctx.end());
      root.route(ApiRoutes.REST + "/*").subRouter(api);
      List<String> unserved = ApiRoutes.unserved(root);
      assertFalse(unserved.contains("GET /api/v1/nodes/{nodeId}"), unserved.toString());
      assertTrue(unserved.contains("GET /api/v1/nodes") && unserved.contains("GET /health"), unserved.toString());
    } finally {
      vertx.close();
    }
  }

  /** Method-bound routes as "METHOD /path/{param}"; handlers without a method (auth, origin, fallbacks) are not routes. */
  private static void walk(Router router, String prefix, Set<String> out) {
    for (Route r : router.getRoutes()) {
      String path = r.getPath();
      if (r.getSubRouter() != null && path != null) {
        // SockJS serves its own transport paths (info, websocket, xhr…): a protocol, not REST routes
        if (!(prefix + path).startsWith(SockJsBridge.PATH)) {
          walk(r.getSubRouter(), prefix + (path.endsWith("/") ? path.substring(0, path.length() - 1) : path), out);
        }
        continue;
      }
      if (r.methods() == null || r.methods().isEmpty()) {
        continue;
      }
      assertNotNull(path, "a route given only as a regex cannot be described: " + r);
      String openApiPath = (prefix + path).replaceAll(":([A-Za-z0-9_]+)", "{$1}");
      r.methods().forEach(m -> out.add(m.name() + " " + openApiPath));
    }
  }

  private static JsonObject fetch(int port) throws Exception {
    HttpResponse<String> resp = get(port, OpenApiEndpoint.PATH);
    assertEquals(200, resp.statusCode(), "the document is served without a token");
    return new JsonObject(resp.body());
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET()
      .build(), HttpResponse.BodyHandlers.ofString());
  }
}
