package io.fleetbus.hub.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fleetbus.hub.boot.HubAssembly;
import io.fleetbus.hub.enrollment.NodeCredential;
import io.fleetbus.hub.monitor.MonitorService;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.edge.EdgePeer;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The hub's edge endpoint on a plain Vert.x (no cluster; a stand-in registry answers hellos, enrolled: edge-x): a link
 * must prove itself with an accepted hello before anything it sends is relayed, and after it only the node's own proven
 * heartbeats, events, chunks and goodbye are; the hub closes a link that breaks either rule, and says why. What the
 * endpoint puts on the bus is heard here by local consumers of the cluster addresses. With
 * {@code -Dfleetbus.fault.edgeTrustsLinks=true} (both rules off; here by constructor) the same attacks get through.
 */
@ExtendWith(VertxExtension.class)
class EdgeEndpointTest {
  private static final String MEMBER = "member-h";
  private static final byte[] KEY_X = NodeProofs.keyOf("credential-of-edge-x");
  private static final byte[] KEY_Y = NodeProofs.keyOf("credential-of-edge-y");

  @TempDir
  Path keys;
  private EdgeEndpointVerticle endpoint;
  private String endpointId;
  /** Held for the test's length: Vert.x closes a client nobody holds (and its connections) when it is collected. */
  private final List<NetClient> clients = new CopyOnWriteArrayList<>();
  /** What the endpoint put on the heartbeat and event addresses (the cluster bus, on a real hub). */
  private final List<Object> relayed = new CopyOnWriteArrayList<>();
  private final Map<Predicate<Object>, Promise<Object>> awaited = new java.util.concurrent.ConcurrentHashMap<>();
  private final ListAppender<ILoggingEvent> closes = new ListAppender<>();

  @BeforeEach
  void deploy(Vertx vertx) throws Exception {
    Codecs.register(vertx);
    HubAssembly.codecs(vertx);
    // the stand-in registry knows edge-x only: any other hello is refused as a real one refuses an unenrolled node
    vertx.eventBus().<NodeHello>localConsumer(Addresses.HUB_REGISTER, m -> {
      if ("edge-x".equals(m.body().nodeId())) {
        m.reply(new JsonObject().put("registered", "edge-x"));
      } else {
        m.fail(FailureCode.UNAUTHORIZED.code, "unknown node " + m.body().nodeId() + ": enroll it first");
      }
    });
    for (String address : List.of(Addresses.HEARTBEAT, Addresses.EVENTS)) {
      vertx.eventBus().localConsumer(address, m -> heard(m.body())).completion().toCompletionStage().toCompletableFuture()
        .get();
    }
    closes.start();
    ((Logger) LoggerFactory.getLogger(EdgePeer.class)).addAppender(closes);
    deployEndpoint(vertx, FaultSwitches.none());
  }

  /** The endpoint under test, with {@code switches} on (in place of the one deployed before, if any). */
  private void deployEndpoint(Vertx vertx, FaultSwitches switches) throws Exception {
    if (endpointId != null) {
      vertx.undeploy(endpointId).toCompletionStage().toCompletableFuture().get();
    }
    endpoint = new EdgeEndpointVerticle(new EdgeSettings("127.0.0.1", 0, 60, EdgePeer.Limits.DEFAULT),
      EdgeCertificate.loadOrCreate(keys, "hub-test"), MEMBER, switches);
    endpointId = vertx.deployVerticle(endpoint).toCompletionStage().toCompletableFuture().get();
    long now = System.currentTimeMillis();
    vertx.eventBus().publish(Addresses.HUB_NODE_KEYS, new NodeCredential("edge-x", KEY_X, null, 0, now, now));
    vertx.eventBus().publish(Addresses.HUB_NODE_KEYS, new NodeCredential("edge-y", KEY_Y, null, 0, now, now));
  }

  @AfterEach
  void detachAppender() {
    ((Logger) LoggerFactory.getLogger(EdgePeer.class)).detachAppender(closes);
  }

  private void heard(Object body) {
    relayed.add(body);
    awaited.forEach((which, promise) -> {
      if (which.test(body)) {
        promise.tryComplete(body);
      }
    });
  }

  /** Completes with the first message the endpoint relays (or relayed) that {@code which} accepts. */
  private Future<Object> relayedOne(Predicate<Object> which) {
    Promise<Object> promise = Promise.promise();
    awaited.put(which, promise);
    relayed.stream().filter(which).findFirst().ifPresent(promise::tryComplete);
    return promise.future();
  }

  private static Predicate<Object> ofNode(String nodeId) {
    return body -> body instanceof Heartbeat hb ? nodeId.equals(hb.nodeId())
      : body instanceof JsonObject event && nodeId.equals(event.getString("nodeId"));
  }

  /** The hub's own event (its member named) that a node's edge link is lost: the hub's, not anything a link sent. */
  private static Predicate<Object> ownLinkLost(String nodeId) {
    return body -> body instanceof JsonObject event && MonitorService.LINK_LOST.equals(event.getString("type"))
      && nodeId.equals(event.getString("nodeId")) && MEMBER.equals(event.getString("member"));
  }

  /** A raw client of the endpoint (trusting any certificate), once the hub's welcome came (it names the member). */
  private Future<EdgePeer> link(Vertx vertx) {
    NetClient client = vertx.createNetClient(new NetClientOptions().setSsl(true).setTrustAll(true)
      .setHostnameVerificationAlgorithm(""));
    clients.add(client);
    Promise<EdgePeer> welcomed = Promise.promise();
    client.connect(endpoint.actualPort(), "127.0.0.1").onFailure(welcomed::tryFail).onSuccess(socket -> {
      EdgePeer peer = new EdgePeer(vertx, socket, "hub", EdgePeer.Limits.DEFAULT);
      peer.onWelcome(w -> {
        if (MEMBER.equals(w.getString("member"))) {
          welcomed.tryComplete(peer);
        } else {
          welcomed.tryFail("the welcome names member " + w.getString("member"));
        }
      }).start();
    });
    return welcomed.future();
  }

  private static Future<EdgePeer.Answer> hello(EdgePeer peer, String nodeId) {
    return peer.request(Addresses.HUB_REGISTER, new NodeHello(nodeId, "i1", MEMBER, "linux", "sudo", new JsonObject(),
      "0.1.0", List.of(), null, null), null, 5000);
  }

  private static Heartbeat heartbeat(String nodeId, long seq, byte[] key) {
    Heartbeat hb = new Heartbeat(nodeId, "i1", seq, System.currentTimeMillis(), null, null);
    return hb.withProof(key == null ? "forged" : NodeProofs.prove(key, NodeProofs.HEARTBEAT,
      NodeProofs.without(hb.toJson(), "proof")));
  }

  /** An event in edge-y's name that edge-y never sent (its proof made up): "edge-y went offline". */
  private static JsonObject forgedEventOfY() {
    return new JsonObject().put("type", "node.offline").put("nodeId", "edge-y").put("proof", "forged");
  }

  /** Whether the hub logged that it closed a link for this reason. */
  private boolean closedFor(String reason) {
    return closes.list.stream().anyMatch(e -> e.getFormattedMessage().startsWith("edge link closed [peer: edge ")
      && e.getFormattedMessage().contains("reason: " + reason));
  }

  @Test
  void aMessageBeforeAnAcceptedHelloIsRefusedAndTheLinkClosed(Vertx vertx, VertxTestContext ctx) {
    link(vertx).onComplete(ctx.succeeding(peer -> peer.request(Addresses.HEARTBEAT, heartbeat("edge-y", 1, null), null,
      5000).onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertEquals(FailureCode.UNAUTHORIZED, FailureCode.of(err), err.getMessage());
        peer.closed().onComplete(ctx.succeeding(reason -> ctx.verify(() -> {
          assertTrue(closedFor("a message before an accepted hello (fleet.heartbeat)"), String.valueOf(closes.list));
          assertEquals(List.of(), relayed, "nothing relayed for a link that did not say hello");
          ctx.completeNow();
        })));
      })))));
  }

  @Test
  void aRefusedHelloClosesTheLink(Vertx vertx, VertxTestContext ctx) {
    link(vertx).onComplete(ctx.succeeding(peer -> hello(peer, "stranger").onComplete(ctx.failing(err -> ctx.verify(() -> {
      assertEquals(FailureCode.UNAUTHORIZED, FailureCode.of(err), err.getMessage());
      assertTrue(err.getMessage().contains("enroll it first"), err.getMessage());
      peer.closed().onComplete(ctx.succeeding(reason -> ctx.verify(() -> {
        assertTrue(closedFor("hello refused for node stranger"), String.valueOf(closes.list));
        ctx.completeNow();
      })));
    })))));
  }

  /**
   * Proven as edge-x, a link's own proven heartbeat is relayed; its own unproven one is refused (the link stays: a
   * rekey the hub has not heard of yet looks the same); one in edge-y's name — even proven with edge-y's credential, as
   * a thief of it could — closes the link, and nothing of edge-y's is relayed.
   */
  @Test
  void aProvenLinkRelaysOnlyItsOwnNodesProvenMessagesAndIsCutForAnothersNode(Vertx vertx, VertxTestContext ctx) {
    link(vertx).compose(peer -> hello(peer, "edge-x").map(peer))
      .compose(peer -> {
        peer.publish(Addresses.HEARTBEAT, heartbeat("edge-x", 1, KEY_X), null);
        return relayedOne(ofNode("edge-x")).map(peer);
      })
      .compose(peer -> peer.request(Addresses.HEARTBEAT, heartbeat("edge-x", 2, null), null, 5000)
        .<EdgePeer>transform(ar -> {
          ctx.verify(() -> {
            assertEquals(FailureCode.FORBIDDEN, FailureCode.of(ar.cause()), String.valueOf(ar.cause()));
            assertTrue(peer.isOpen(), "one unproven heartbeat of its own does not cut the link");
          });
          return Future.succeededFuture(peer);
        }))
      .compose(peer -> {
        peer.publish(Addresses.HEARTBEAT, heartbeat("edge-y", 3, KEY_Y), null);
        peer.publish(Addresses.EVENTS, forgedEventOfY(), null);
        // the hub's own notice that edge-x's link is lost comes after the cut: wait for it, then count the rest
        return peer.closed().compose(reason -> relayedOne(ownLinkLost("edge-x")));
      })
      .onComplete(ctx.succeeding(notice -> ctx.verify(() -> {
        assertTrue(closedFor("a message in another node's name (edge-y, on fleet.heartbeat)"), String.valueOf(closes.list));
        List<Object> fromTheLink = relayed.stream().filter(ownLinkLost("edge-x").negate()).toList();
        assertEquals(1, fromTheLink.size(), "only edge-x's proven heartbeat: " + relayed);
        assertEquals(1, ((Heartbeat) fromTheLink.get(0)).seq(), relayed.toString());
        ctx.completeNow();
      })));
  }

  /** The rules off (the fault switch): a link with no hello, and one proven as edge-x, both speak for edge-y. */
  @Test
  void withTheRulesOffAHostileLinkGetsForgedMessagesOfAnotherNodeRelayed(Vertx vertx, VertxTestContext ctx)
    throws Exception {
    deployEndpoint(vertx, FaultSwitches.of(FaultSwitch.EDGE_TRUSTS_LINKS));
    Future<Object> noHello = link(vertx).compose(peer -> {
      peer.publish(Addresses.HEARTBEAT, heartbeat("edge-y", 1, null), null);
      return relayedOne(body -> body instanceof Heartbeat hb && "edge-y".equals(hb.nodeId()));
    });
    Future<Object> asX = noHello.compose(v -> link(vertx)).compose(peer -> hello(peer, "edge-x").map(peer))
      .compose(peer -> {
        peer.publish(Addresses.EVENTS, forgedEventOfY(), null);
        return relayedOne(body -> body instanceof JsonObject event && "edge-y".equals(event.getString("nodeId")));
      });
    asX.onComplete(ctx.succeeding(event -> ctx.verify(() -> {
      assertEquals("forged", ((Heartbeat) noHello.result()).proof(), "a forged heartbeat from a link that never said hello");
      assertEquals("node.offline", ((JsonObject) event).getString("type"), "a forged event from a link proven as edge-x");
      ctx.completeNow();
    })));
  }
}
