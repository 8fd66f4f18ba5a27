package io.fleetbus.hub.registry;

import static io.fleetbus.hub.TestFutures.await;
import static io.fleetbus.hub.TestFutures.failureOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.enrollment.EnrollmentBus;
import io.fleetbus.hub.enrollment.EnrollmentService;
import io.fleetbus.hub.enrollment.HelloAdmission;
import io.fleetbus.hub.monitor.HeartbeatMonitorVerticle;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.LocalCodec;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.NodeRegistered;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry through its typed client, on a plain Vert.x with its SQLite file in a temp folder and the real heartbeat
 * monitor: hellos the enrollment admits are registered and looked up, settings and revocations change what it knows, a
 * silent node goes offline, and a bad question fails with its code. Enrollment is a stand-in that admits every hello
 * except the intruder's (the proofs themselves are enrollment's tests).
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 5, unit = TimeUnit.SECONDS)
class RegistryServiceTest {
  private static final byte[] KEY = NodeProofs.keyOf("fbc_registry-test-credential");

  @TempDir
  Path dir;
  private Vertx vertx;
  private RegistryService registry;

  @BeforeEach
  void deploy(Vertx vertx, VertxTestContext ctx) {
    this.vertx = vertx;
    Codecs.register(vertx);
    LocalCodec.register(vertx, NodeRecord.class);
    LocalCodec.register(vertx, HelloAdmission.class);
    registry = RegistryBus.client(vertx);
    EnrollmentBus.serve(vertx, new AdmitAllButTheIntruder())
      .compose(v -> vertx.deployVerticle(new HeartbeatMonitorVerticle(2),
        new DeploymentOptions().setConfig(new JsonObject().put("sweepMs", 100))))
      .onComplete(ctx.succeedingThenComplete());
  }

  /** The registry with nodes expected to beat every {@code heartbeatMs}. */
  private void startRegistry(long heartbeatMs) throws Exception {
    await(vertx.deployVerticle(new RegistryVerticle(dir.resolve("fleetbus.db"), heartbeatMs)));
  }

  private Future<NodeRegistered> hello(String nodeId, String instanceId, List<String> tools, JsonObject labels) {
    NodeHello hello = new NodeHello(nodeId, instanceId, "member-" + nodeId, "linux", "sudo", labels, "0.1.0", tools,
      new JsonObject().put("method", "credential").put("nonce", UUID.randomUUID().toString()));
    return vertx.eventBus().<NodeRegistered>request(Addresses.HUB_REGISTER, hello).map(Message::body);
  }

  private Future<NodeRegistered> hello(String nodeId) {
    return hello(nodeId, "i1", List.of("read_file"), new JsonObject());
  }

  @Test
  void anAdmittedHelloIsRegisteredAndFoundOnline() throws Exception {
    startRegistry(60_000);
    NodeRegistered answer = await(hello("n1", "i1", List.of("read_file", "run_command"), new JsonObject().put("env", "prod")));
    assertEquals(1, answer.epoch());
    assertEquals(60_000, answer.heartbeatIntervalMs());

    NodeRecord n1 = await(registry.lookup("n1"));
    assertTrue(n1.online(), "a node proving its credential is online with its hello");
    assertEquals("i1", n1.instanceId());
    assertEquals(new JsonArray().add("read_file").add("run_command"), n1.tools());
    assertEquals("prod", n1.labels().getString("env"));
    JsonObject listed = await(registry.list()).getJsonArray("nodes").getJsonObject(0);
    assertEquals("n1", listed.getString("nodeId"));
    JsonObject described = await(registry.describe("n1"));
    assertEquals(60_000L, described.getLong("heartbeatIntervalMs"));
    assertEquals("registered", described.getJsonArray("lifecycle").getJsonObject(0).getString("event"),
      described.encodePrettily());
  }

  /** Group commit: a storm of hellos costs a few transactions, and each answer comes only once its row is on disk. */
  @Test
  void manyHellosAtOnceAreAnsweredFromFewTransactionsAndAreOnDiskWhenAnswered() throws Exception {
    RegistryVerticle verticle = new RegistryVerticle(dir.resolve("fleetbus.db"), 60_000);
    await(vertx.deployVerticle(verticle));
    int n = 200;
    long before = verticle.commits();
    List<Future<NodeRegistered>> answers = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      answers.add(hello(String.format("storm-%03d", i)));
    }
    await(Future.all(answers));
    long transactions = verticle.commits() - before;
    assertTrue(transactions <= n / 4, n + " hellos took " + transactions + " transactions");
    // as if the hub were killed now: a second connection (no flush, no clean stop) finds every answered node
    try (NodeStore disk = new NodeStore(dir.resolve("fleetbus.db"))) {
      assertEquals(n, disk.loadAll().size());
    }
  }

  @Test
  void candidatesCarryEveryNodeWithItsToolsAndLabels() throws Exception {
    startRegistry(60_000);
    await(hello("web-1", "i1", List.of("read_file"), new JsonObject().put("role", "web")));
    await(hello("db-1", "i1", List.of("read_file", "run_command"), new JsonObject().put("role", "db")));
    Map<String, NodeRecord> byId = await(registry.candidates()).stream()
      .collect(Collectors.toMap(NodeRecord::nodeId, Function.identity()));
    assertEquals(2, byId.size(), byId.toString());
    assertEquals(List.of("db-1"), byId.values().stream().filter(n -> n.tools().contains("run_command"))
      .map(NodeRecord::nodeId).toList());
    assertEquals("web", byId.get("web-1").labels().getString("role"));
  }

  @Test
  void aSecondProcessWithALiveNodesIdIsRefusedAndTheSameProcessMayRepeatItsHello() throws Exception {
    startRegistry(60_000);
    await(hello("n1", "i1", List.of(), new JsonObject()));
    Throwable second = failureOf(hello("n1", "i2", List.of(), new JsonObject()));
    assertEquals(FailureCode.CONFLICT, FailureCode.of(second), second.getMessage());
    assertEquals(2, await(hello("n1", "i1", List.of(), new JsonObject())).epoch(), "the same process says hello again");
    assertEquals("i1", await(registry.lookup("n1")).instanceId());
  }

  @Test
  void aHelloEnrollmentRefusesRegistersNothing() throws Exception {
    startRegistry(60_000);
    Throwable refused = failureOf(hello("intruder"));
    assertEquals(FailureCode.UNAUTHORIZED, FailureCode.of(refused), refused.getMessage());
    assertEquals(FailureCode.NOT_FOUND, FailureCode.of(failureOf(registry.lookup("intruder"))));
  }

  @Test
  void confirmedSettingsChangeLabelsAndHeartbeatInterval() throws Exception {
    startRegistry(60_000);
    await(hello("n1"));
    JsonObject labels = new JsonObject().put("env", "staging");
    await(registry.applySettings(new NodeSettings("n1", "admin", new JsonObject().put("labels", labels)
      .put("heartbeatIntervalMs", 5_000), labels, 5_000L)));
    assertEquals(labels, await(registry.lookup("n1")).labels());
    JsonObject described = await(registry.describe("n1"));
    assertEquals(5_000L, described.getLong("heartbeatIntervalMs"));
    Throwable unknown = failureOf(registry.applySettings(new NodeSettings("nobody", "admin", new JsonObject(), labels, null)));
    assertEquals(FailureCode.NOT_FOUND, FailureCode.of(unknown), unknown.getMessage());
  }

  @Test
  void aForgottenNodeIsGone() throws Exception {
    startRegistry(60_000);
    await(hello("n1"));
    assertTrue(await(registry.forget("n1")), "it was known");
    assertEquals(FailureCode.NOT_FOUND, FailureCode.of(failureOf(registry.lookup("n1"))));
    assertTrue(await(registry.list()).getJsonArray("nodes").isEmpty());
    assertFalse(await(registry.forget("n1")), "forgotten already");
  }

  /** The view the router reads on each call (no bus request) changes with the registry: a hello, new labels, a forget. */
  @Test
  void theRoutersViewFollowsEveryChange() throws Exception {
    NodeView view = new NodeView();
    await(vertx.deployVerticle(new RegistryVerticle(dir.resolve("fleetbus.db"), 60_000, null,
      RegistryVerticle.DEFAULT_SAVE_BEATS_MS, view)));
    assertEquals(FailureCode.NOT_FOUND, FailureCode.of(failureOf(view.lookup("n1"))));
    await(hello("n1"));
    assertTrue(await(view.lookup("n1")).online());
    JsonObject labels = new JsonObject().put("env", "staging");
    await(registry.applySettings(new NodeSettings("n1", "admin", new JsonObject().put("labels", labels), labels, null)));
    assertEquals(labels, await(view.lookup("n1")).labels());
    assertEquals(List.of("n1"), view.candidates().stream().map(NodeRecord::nodeId).toList());
    await(registry.forget("n1"));
    assertEquals(FailureCode.NOT_FOUND, FailureCode.of(failureOf(view.lookup("n1"))));
    assertEquals(FailureCode.BAD_REQUEST, FailureCode.of(failureOf(view.lookup(null))));
  }

  @Test
  void aSilentNodeGoesOffline() throws Exception {
    startRegistry(50);
    CompletableFuture<JsonObject> offline = new CompletableFuture<>();
    vertx.eventBus().<JsonObject>consumer(Addresses.EVENTS, m -> {
      if ("node.offline".equals(m.body().getString("type"))) {
        offline.complete(m.body());
      }
    });
    await(hello("n1"));
    JsonObject event = offline.get(2, TimeUnit.SECONDS);
    assertEquals("missed_heartbeats", event.getString("reason"), event.encode());
    // the monitor tells the registry before it publishes the event, so the registry knows by now
    NodeRecord n1 = await(registry.lookup("n1"));
    assertFalse(n1.online(), "offline after two silent intervals");
  }

  @Test
  void aNodeTheConfigExpectsIsShownUntilItSaysHello() throws Exception {
    startRegistry(60_000);
    vertx.eventBus().send(Addresses.HUB_EXPECTED_NODES, new JsonArray().add(new JsonObject().put("nodeId", "later")));
    JsonObject later = await(registry.describe("later"));
    assertEquals("never connected", later.getString("state"));
    assertFalse(later.getBoolean("online"));
    assertEquals(FailureCode.NOT_FOUND, FailureCode.of(failureOf(registry.lookup("later"))),
      "the router finds no node to call");
  }

  @Test
  void badQuestionsFailWithTheirCode() throws Exception {
    startRegistry(60_000);
    Throwable noId = failureOf(registry.lookup(null));
    assertEquals(FailureCode.BAD_REQUEST, FailureCode.of(noId), noId.getMessage());
    Throwable unknown = failureOf(registry.describe("nobody"));
    assertEquals(FailureCode.NOT_FOUND, FailureCode.of(unknown));
    assertTrue(unknown.getMessage().contains("nobody"), unknown.getMessage());
    assertEquals(FailureCode.BAD_REQUEST, FailureCode.of(failureOf(registry.forget(null))));
    assertNull(await(registry.ping()), "the SQLite file answers");
  }

  /** Admits every hello by its credential, except node "intruder"'s. */
  private static final class AdmitAllButTheIntruder implements EnrollmentService {
    @Override
    public Future<HelloAdmission> admit(NodeHello hello) {
      return "intruder".equals(hello.nodeId())
        ? Future.failedFuture(FailureCode.UNAUTHORIZED.exception("hello of node 'intruder' refused: it proves nothing"))
        : Future.succeededFuture(new HelloAdmission(hello.nodeId(), KEY, null, "hub-public-key", false));
    }

    @Override
    public Future<JsonObject> createToken(String nodeId, Long ttlMinutes, String by) {
      return Future.failedFuture("not asked by the registry");
    }

    @Override
    public Future<JsonObject> rekey(String nodeId, String by) {
      return Future.failedFuture("not asked by the registry");
    }

    @Override
    public Future<JsonObject> revoke(String nodeId, String by) {
      return Future.failedFuture("not asked by the registry");
    }
  }
}
