package io.fleetbus.hub.health;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fleetbus.hub.registry.RegistryVerticle;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * /ready says 503 and why until the hub is deployed, and again when its SQLite registry is gone; /health stays up.
 * /ready lists the fault switches the hub runs with.
 */
@Timeout(90)
class HealthRoutesTest {
  private static ClusterLauncher.Member member;
  private static final AtomicBoolean deployed = new AtomicBoolean();
  private static int port;

  @BeforeAll
  static void start() throws Exception {
    JsonObject cluster = new JsonObject().put("name", "fleetbus-health-" + UUID.randomUUID()).put("port", 0)
      .put("config", Path.of("..", "cluster.xml").toAbsolutePath().normalize().toString());
    member = await(ClusterLauncher.start(new JsonObject().put("cluster", cluster), false));
    Router root = Router.router(member.vertx());
    io.fleetbus.hub.cluster.SplitWatch split = new io.fleetbus.hub.cluster.SplitWatch(member.vertx(),
      member.clusterManager().getHazelcastInstance(), io.fleetbus.hub.auth.HubKeys.loadOrCreate(
        Files.createTempDirectory("fleetbus-health-keys")).directiveSigner(60_000)).start();
    new HealthRoutes(new HubReadiness(member.clusterManager(), deployed::get,
      FaultSwitches.of(FaultSwitch.NO_AUTHZ), split::state)).mount(member.vertx(), root, null);
    port = await(member.vertx().createHttpServer().requestHandler(root).listen(0, "127.0.0.1")).actualPort();
  }

  @AfterAll
  static void stop() throws Exception {
    await(member.vertx().close());
  }

  @Test
  void readyOnlyWhenDeployedWithAnOpenDatabase() throws Exception {
    JsonObject notYet = get("/ready", 503);
    assertEquals("DOWN", check(notYet, "verticles").getString("status"), notYet.encodePrettily());
    assertEquals("DOWN", check(notYet, "sqlite").getString("status"), "no registry answers yet");
    assertEquals("UP", check(notYet, "cluster").getString("status"));

    Path db = Files.createTempDirectory("fleetbus-health").resolve("fleetbus.db");
    String registry = await(member.vertx().deployVerticle(new RegistryVerticle(db, 1000)));
    deployed.set(true);
    JsonObject ready = get("/ready", 200);
    assertEquals("UP", ready.getString("status"), ready.encodePrettily());
    // a switch on is shown (and is no reason to be unready)
    JsonObject switches = check(ready, "faultSwitches");
    assertEquals("UP", switches.getString("status"));
    assertEquals("fleetbus.fault.noAuthz", switches.getJsonObject("data").getJsonObject("noAuthz").getString("property"),
      ready.encodePrettily());
    assertEquals("security", switches.getJsonObject("data").getJsonObject("noAuthz").getString("kind"));
    // a lone hub has lost no hub: whole (a split is shown here too, and is no reason to be unready either)
    JsonObject cluster = check(ready, "cluster").getJsonObject("data");
    assertEquals("whole", cluster.getString("state"), cluster.encode());
    assertEquals(0, cluster.getJsonArray("lostHubs").size(), cluster.encode());

    await(member.vertx().undeploy(registry));
    JsonObject closed = get("/ready", 503);
    assertEquals("DOWN", check(closed, "sqlite").getString("status"), closed.encodePrettily());
    assertEquals("UP", get("/health", 200).getString("status"), "liveness does not depend on readiness");
  }

  private static JsonObject check(JsonObject health, String id) {
    return health.getJsonArray("checks").stream().map(JsonObject.class::cast)
      .filter(c -> id.equals(c.getString("id"))).findFirst().orElseThrow(() -> new AssertionError("no check " + id));
  }

  private static JsonObject get(String path, int expectedStatus) throws Exception {
    HttpResponse<String> resp = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
      URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(expectedStatus, resp.statusCode(), path + " answered " + resp.body());
    return new JsonObject(resp.body());
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
