package io.fleetbus.hub.routing;

import static io.fleetbus.hub.routing.NodesInMemory.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.boot.HubAssembly;
import io.fleetbus.hub.auth.DirectiveSigner;
import io.fleetbus.hub.auth.HubKeys;
import io.fleetbus.hub.enrollment.NodeCredential;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the router sends a call, through its typed client on a plain Vert.x: the registry is an in-memory stand-in,
 * and each "node" is a consumer on its call address that answers with its proof (its key published to the router as
 * enrollment would). No cluster.
 */
@ExtendWith(VertxExtension.class)
@Timeout(10)
class RoutingChoicesTest {
  private static final ToolCatalog CATALOG = ToolCatalog.load();
  private static DirectiveSigner signer;

  private final NodesInMemory registry = new NodesInMemory();
  /** Node ids in the order calls reached them. */
  private final List<String> reached = new CopyOnWriteArrayList<>();
  private RoutingService routing;

  @BeforeAll
  static void keys(@TempDir Path dir) throws Exception {
    signer = HubKeys.loadOrCreate(dir.resolve("keys")).directiveSigner(30_000);
  }

  @BeforeEach
  void deploy(Vertx vertx, VertxTestContext test) {
    Codecs.register(vertx);
    HubAssembly.codecs(vertx);
    routing = RoutingBus.client(vertx);
    RegistryBus.serve(vertx, registry)
      .compose(v -> vertx.deployVerticle(new RouterVerticle(CATALOG, 0, signer)))
      .onComplete(test.succeedingThenComplete());
  }

  /** A node that runs every call it gets (answering with its proof) and says where it ran. */
  private void answering(Vertx vertx, String nodeId) {
    byte[] key = NodeProofs.keyOf("credential-of-" + nodeId);
    long now = System.currentTimeMillis();
    vertx.eventBus().publish(Addresses.HUB_NODE_KEYS, new NodeCredential(nodeId, key, null, 0, now, now));
    vertx.eventBus().<ToolCall>consumer(Addresses.nodeCall(nodeId), msg -> {
      reached.add(nodeId);
      ToolResult r = ToolResult.ok(msg.body().callId(), nodeId, new JsonObject().put("ranOn", nodeId), 1);
      msg.reply(r.withProof(NodeProofs.prove(key, NodeProofs.RESULT, NodeProofs.without(r.toJson(), "proof"))));
    });
  }

  private static ToolCall call(String tool, String nodeId, JsonObject selector) {
    return new ToolCall(UUID.randomUUID().toString(), null, "alice", List.of("admin"), tool, new JsonObject(), nodeId,
      selector, 2000, false, null);
  }

  private static JsonObject labels(String key, String value) {
    return new JsonObject().put(key, value);
  }

  @Test
  void aSelectorPicksTheLeastLoadedNodeWithItsLabels(Vertx vertx, VertxTestContext test) {
    registry.put(node("busy", "linux", "root", labels("env", "prod"), 90, true))
      .put(node("idle", "linux", "root", labels("env", "prod"), 5, true))
      .put(node("dev", "linux", "root", labels("env", "dev"), 0, true));
    List.of("busy", "idle", "dev").forEach(n -> answering(vertx, n));
    routing.route(call("read_file", null, new JsonObject().put("labels", labels("env", "prod"))))
      .onComplete(test.succeeding(r -> test.verify(() -> {
        assertEquals("idle", r.nodeId());
        assertEquals(List.of("idle"), reached, "only the chosen node ran it");
        test.completeNow();
      })));
  }

  @Test
  void nodesThatCannotRunTheToolAreLeftOut(Vertx vertx, VertxTestContext test) {
    // get_service_status is linux-only; run_command is tier 3, which an unprivileged node never runs
    registry.put(node("win", "windows", "root", new JsonObject(), 0, true))
      .put(node("lin", "linux", "root", new JsonObject(), 80, true))
      .put(node("weak", "linux", "unprivileged", new JsonObject(), 0, true));
    List.of("win", "lin", "weak").forEach(n -> answering(vertx, n));
    routing.route(call("get_service_status", null, new JsonObject()))
      .compose(first -> routing.route(call("run_command", null, new JsonObject().put("platform", "linux")))
        .map(second -> List.of(first, second)))
      .onComplete(test.succeeding(both -> test.verify(() -> {
        assertEquals("weak", both.get(0).nodeId(), "as idle as win, but on a platform the tool supports");
        assertEquals("lin", both.get(1).nodeId(), "the only linux node whose capability tier allows tier 3");
        assertEquals(List.of("weak", "lin"), reached);
        test.completeNow();
      })));
  }

  /**
   * Several calls in flight to a node whose member leaves: every one ends at once with the 503 "outcome unknown" rule,
   * none waits for its timeout, and ending them raises nothing on the router's event loop (it used to throw a
   * ConcurrentModificationException there: each ended call removed itself from the map being walked).
   */
  @Test
  void everyCallInFlightEndsWhenItsNodeIsGone(Vertx vertx, VertxTestContext test) {
    registry.put(node("mute", "linux", "root", new JsonObject(), 0, true));
    byte[] key = NodeProofs.keyOf("credential-of-mute");
    long now = System.currentTimeMillis();
    vertx.eventBus().publish(Addresses.HUB_NODE_KEYS, new NodeCredential("mute", key, null, 0, now, now));
    int calls = 5;
    List<Throwable> unhandled = new CopyOnWriteArrayList<>();
    vertx.exceptionHandler(unhandled::add);
    // a node that takes its calls and never answers (the process was killed after receiving them)
    vertx.eventBus().<ToolCall>consumer(Addresses.nodeCall("mute"), msg -> {
      reached.add("mute");
      if (reached.size() == calls) {
        vertx.eventBus().publish(Addresses.HUB_NODE_GONE, new JsonObject().put("nodeId", "mute").put("reason", "member_left"));
      }
    });
    long start = System.nanoTime();
    List<Future<FailureCode>> ended = new java.util.ArrayList<>();
    for (int i = 0; i < calls; i++) {
      ended.add(routing.route(call("read_file", "mute", null)).transform(ar -> codeOf(ar.cause())));
    }
    Future.all(ended).onComplete(test.succeeding(all -> test.verify(() -> {
      long ms = (System.nanoTime() - start) / 1_000_000;
      for (Future<FailureCode> f : ended) {
        assertEquals(FailureCode.NO_ELIGIBLE_NODE, f.result(), "ended by the node leaving, with 503, not by the timeout");
      }
      assertTrue(ms < 1500, "all " + calls + " calls ended " + ms + " ms after they were sent (their timeout: 2 s)");
      assertTrue(unhandled.isEmpty(), "raised on an event loop: " + unhandled);
      test.completeNow();
    })));
  }

  /**
   * The monitor hears a node's member leave a moment before the registry lists it offline: a call routed on the record
   * read in between is refused at once ("did not run") instead of being sent into the void to wait out its timeout.
   * Once the node is online again, calls reach it.
   */
  @Test
  void aCallRoutedJustAfterItsNodeLeftIsNotSent(Vertx vertx, VertxTestContext test) {
    registry.put(node("late", "linux", "root", new JsonObject(), 0, true)); // the registry still says online
    answering(vertx, "late");
    vertx.eventBus().publish(Addresses.HUB_NODE_GONE, new JsonObject().put("nodeId", "late").put("reason", "member_left"));
    long start = System.nanoTime();
    routing.route(call("read_file", "late", null)).transform(ar -> Future.succeededFuture(ar.cause()))
      .compose(refused -> {
        test.verify(() -> {
          assertEquals(FailureCode.NO_ELIGIBLE_NODE, FailureCode.of(refused), String.valueOf(refused));
          assertTrue(refused.getMessage().contains("did not run"), refused.getMessage());
          assertTrue(reached.isEmpty(), "nothing was sent to the node");
          assertTrue((System.nanoTime() - start) / 1_000_000 < 1000, "refused at once, not at the 2-s timeout");
        });
        vertx.eventBus().publish(Addresses.HUB_NODE_BACK, new JsonObject().put("nodeId", "late"));
        return routing.route(call("read_file", "late", null));
      })
      .onComplete(test.succeeding(r -> test.verify(() -> {
        assertEquals("late", r.nodeId());
        assertEquals(List.of("late"), reached, "online again: the call reached it");
        test.completeNow();
      })));
  }

  @Test
  void noEligibleNodeIs503AndSaysWhyEachWasLeftOut(Vertx vertx, VertxTestContext test) {
    registry.put(node("dev", "linux", "root", labels("env", "dev"), 0, true))
      .put(node("gone", "linux", "root", labels("env", "prod"), 0, false));
    answering(vertx, "dev");
    routing.route(call("read_file", null, new JsonObject().put("labels", labels("env", "prod"))))
      .onComplete(test.failing(err -> test.verify(() -> {
        assertEquals(FailureCode.NO_ELIGIBLE_NODE, FailureCode.of(err));
        assertTrue(err.getMessage().contains("\"dev\":\"label env=dev, wanted prod\""), err.getMessage());
        assertTrue(err.getMessage().contains("\"gone\":\"offline"), err.getMessage());
        assertEquals(List.of(), reached);
        test.completeNow();
      })));
  }

  @Test
  void aNamedNodeMustBeKnownOnlineAndCapable(Vertx vertx, VertxTestContext test) {
    registry.put(node("off", "linux", "root", new JsonObject(), 0, false))
      .put(node("weak", "linux", "unprivileged", new JsonObject(), 0, true));
    Future<FailureCode> unknown = routing.route(call("read_file", "nobody", null)).transform(ar -> codeOf(ar.cause()));
    Future<FailureCode> offline = routing.route(call("read_file", "off", null)).transform(ar -> codeOf(ar.cause()));
    Future<FailureCode> incapable = routing.route(call("run_command", "weak", null)).transform(ar -> codeOf(ar.cause()));
    Future.all(unknown, offline, incapable).onComplete(test.succeeding(all -> test.verify(() -> {
      assertEquals(FailureCode.NOT_FOUND, unknown.result());
      assertEquals(FailureCode.NO_ELIGIBLE_NODE, offline.result());
      assertEquals(FailureCode.FORBIDDEN, incapable.result());
      test.completeNow();
    })));
  }

  private static Future<FailureCode> codeOf(Throwable err) {
    return Future.succeededFuture(err == null ? null : FailureCode.of(err));
  }

  @Test
  void aFanOutRunsOnEveryEligibleNode(Vertx vertx, VertxTestContext test) {
    registry.put(node("a", "linux", "root", labels("role", "web"), 10, true))
      .put(node("b", "linux", "root", labels("role", "web"), 20, true))
      .put(node("c", "linux", "root", labels("role", "db"), 0, true));
    List.of("a", "b", "c").forEach(n -> answering(vertx, n));
    routing.route(call("read_file", null, new JsonObject().put("labels", labels("role", "web")).put("mode", "all")))
      .onComplete(test.succeeding(r -> test.verify(() -> {
        JsonArray results = r.data().getJsonArray("results");
        assertEquals(2, results.size(), r.data().encode());
        assertEquals(2, r.data().getJsonObject("summary").getInteger("ok"));
        assertEquals(List.of("a", "b"), reached.stream().sorted().toList());
        test.completeNow();
      })));
  }

  @Test
  void aPlanResolvesTheSelectorOnceAndTheRouteKeepsToIt(Vertx vertx, VertxTestContext test) {
    registry.put(node("busy", "linux", "root", labels("env", "prod"), 90, true))
      .put(node("idle", "linux", "root", labels("env", "prod"), 5, true));
    List.of("busy", "idle").forEach(n -> answering(vertx, n));
    routing.plan(call("run_command", null, new JsonObject().put("labels", labels("env", "prod"))))
      .compose(plan -> {
        test.verify(() -> {
          assertNull(plan.refusal());
          assertEquals(new JsonArray().add("idle"), plan.call().selector().getJsonArray("nodes"));
        });
        // loads change while a person decides: the approved call still runs where the plan put it
        registry.put(node("busy", "linux", "root", labels("env", "prod"), 0, true))
          .put(node("idle", "linux", "root", labels("env", "prod"), 95, true));
        return routing.route(plan.call());
      })
      .onComplete(test.succeeding(r -> test.verify(() -> {
        assertEquals("idle", r.nodeId());
        assertEquals(List.of("idle"), reached);
        test.completeNow();
      })));
  }

  @Test
  void aPlanWithNoEligibleNodeIsARefusalWith503(VertxTestContext test) {
    registry.put(node("weak", "linux", "unprivileged", labels("env", "prod"), 0, true));
    routing.plan(call("run_command", null, new JsonObject().put("labels", labels("env", "prod"))))
      .onComplete(test.succeeding(plan -> test.verify(() -> {
        assertTrue(plan.isRefused());
        assertEquals(FailureCode.NO_ELIGIBLE_NODE, plan.refusal().code());
        assertEquals("policy", plan.refusal().by());
        assertNull(plan.call());
        test.completeNow();
      })));
  }
}
