package io.fleetbus.node.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.edge.EdgePeer;
import io.fleetbus.shared.edge.TlsWarmUp;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.StreamChunk;
import io.fleetbus.shared.trust.Digests;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The edge node's link against stand-in hubs (TLS servers speaking the edge frames, no cluster): what the node's
 * verticles ask the hubs crosses the link and is answered locally, the hub's calls reach the node's address only, a
 * lost link moves to the next hub and greets it, and a hub whose certificate is not the pinned one is never reached.
 * Each test waits for what happens (a greeting, an answer, a failure), never for a time: its two minutes only stop a
 * hang (a loaded machine once took more than the 10 s a test had, the event loop blocked 2.5 s in TLS set-up). The
 * TLS handshakes get those two minutes too (Vert.x gives 10 s): a handshake that ran out of time on a loaded machine
 * sent the failover test's node straight to its second hub, so the first hub's drop never came.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 2, timeUnit = TimeUnit.MINUTES)
class EdgeLinkTest {
  private static final long HANG_SECONDS = 120;
  private static final String NODE = "edge-1";

  @BeforeEach
  void codecs(Vertx vertx) {
    Codecs.register(vertx);
  }

  private static String pem(String name) throws Exception {
    try (var in = EdgeLinkTest.class.getResourceAsStream("/edge/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
  }

  private static String sha256(String certPem) throws Exception {
    var cert = CertificateFactory.getInstance("X.509").generateCertificate(
      new ByteArrayInputStream(certPem.getBytes(StandardCharsets.US_ASCII)));
    return Digests.hex(Digests.sha256(cert.getEncoded()));
  }

  /** A stand-in hub: welcomes every link as {@code member} and hands each to {@code onLink}. */
  private static NetServer hub(Vertx vertx, String cert, String member, Consumer<EdgePeer> onLink) throws Exception {
    NetServer server = vertx.createNetServer(options(cert)).connectHandler(socket -> {
      EdgePeer peer = new EdgePeer(vertx, socket, "node", EdgePeer.Limits.DEFAULT);
      onLink.accept(peer);
      peer.start();
      peer.welcome(new JsonObject().put("member", member));
    });
    server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(HANG_SECONDS, TimeUnit.SECONDS);
    return server;
  }

  private static EdgeNodeSettings settings(String pin, NetServer... hubs) {
    return new EdgeNodeSettings(List.of(hubs).stream()
      .map(h -> new EdgeNodeSettings.Hub("127.0.0.1", h.actualPort())).toList(), pin, 15, EdgeNodeSettings.RELINK_SPREAD_MS,
      (int) HANG_SECONDS);
  }

  private static NetServerOptions options(String cert) throws Exception {
    return new NetServerOptions().setSsl(true).setSslEngineOptions(TlsWarmUp.engine())
      .setSslHandshakeTimeout(HANG_SECONDS).setSslHandshakeTimeoutUnit(TimeUnit.SECONDS)
      .setKeyCertOptions(new PemKeyCertOptions().setCertValue(Buffer.buffer(pem(cert + "-cert.pem")))
        .setKeyValue(Buffer.buffer(pem(cert + "-key.pem"))));
  }

  @Test
  void theNodesAsksCrossTheLinkAndTheHubsCallsReachOnlyTheNode(Vertx vertx, VertxTestContext ctx) throws Exception {
    Promise<EdgePeer> hubSide = Promise.promise();
    NetServer server = hub(vertx, "hub", "member-a", peer -> peer.onMessage(in -> {
      if (in.address().equals(Addresses.HUB_REGISTER)) {
        peer.reply(in.replyId(), new JsonObject().put("welcome", ((JsonObject) in.body()).getString("node")),
          MultiMap.caseInsensitiveMultiMap().add("fb-seen", "yes"));
      } else if (in.address().equals(Addresses.HUB_GOODBYE)) {
        peer.fail(in.replyId(), 401, "goodbye not proven");
      }
      hubSide.tryComplete(peer);
    }));
    EdgeLinkVerticle link = new EdgeLinkVerticle(settings(sha256(pem("hub-cert.pem")), server), NODE,
      EdgePeer.Limits.DEFAULT);
    Promise<Void> greeted = Promise.promise();
    link.onNewHub(greeted::tryComplete);
    vertx.eventBus().<JsonObject>consumer(Addresses.nodeCall(NODE), m -> m.reply(new JsonObject().put("ran",
      m.body().getString("tool")), new DeliveryOptions().addHeader("fb-proof", "p1")));
    var bus = vertx.eventBus();
    vertx.deployVerticle(link).compose(id -> greeted.future())
      .compose(v -> {
        ctx.verify(() -> assertEquals("member-a", link.memberId()));
        return bus.<JsonObject>request(Addresses.HUB_REGISTER, new JsonObject().put("node", NODE));
      })
      .compose(answer -> {
        ctx.verify(() -> {
          assertEquals(new JsonObject().put("welcome", NODE), answer.body());
          assertEquals("yes", answer.headers().get("fb-seen"));
        });
        return bus.request(Addresses.HUB_GOODBYE, new JsonObject()).transform(ar -> {
          ctx.verify(() -> {
            assertTrue(ar.failed(), "the hub refused the goodbye");
            assertEquals(FailureCode.UNAUTHORIZED, FailureCode.of(ar.cause()));
          });
          return hubSide.future();
        });
      })
      .compose(hub -> hub.request(Addresses.nodeCall(NODE), new JsonObject().put("tool", "get_agent_health"), null,
        HANG_SECONDS * 1000)
        .compose(answer -> {
          ctx.verify(() -> {
            assertEquals(new JsonObject().put("ran", "get_agent_health"), answer.body());
            assertEquals("p1", answer.headers().get("fb-proof"));
          });
          return hub.request(Addresses.nodeCall("another-node"), new JsonObject(), null, HANG_SECONDS * 1000)
            .transform(ar -> {
              ctx.verify(() -> assertEquals(FailureCode.FORBIDDEN, FailureCode.of(ar.cause())));
              return Future.succeededFuture();
            });
        }))
      .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aLostLinkMovesToTheNextHubAndGreetsIt(Vertx vertx, VertxTestContext ctx) throws Exception {
    NetServer first = hub(vertx, "hub", "member-a", peer -> peer.onMessage(in -> peer.close("hub dies")));
    NetServer second = hub(vertx, "hub", "member-b", peer -> peer.onMessage(in ->
      peer.reply(in.replyId(), new JsonObject().put("by", "b"), null)));
    EdgeLinkVerticle link = new EdgeLinkVerticle(settings(sha256(pem("hub-cert.pem")), first, second), NODE,
      EdgePeer.Limits.DEFAULT);
    var checks = ctx.checkpoint(3);
    link.onNewHub(() -> {
      checks.flag();
      if ("member-a".equals(link.memberId())) {
        // the first hub drops the link while the node waits for an answer: that ask ends as outcome unknown
        vertx.eventBus().request(Addresses.HUB_REGISTER, new JsonObject()).onComplete(ctx.failing(err -> ctx.verify(() -> {
          assertEquals(FailureCode.TIMEOUT, FailureCode.of(err), err.getMessage());
          checks.flag();
        })));
      }
    });
    vertx.deployVerticle(link).onComplete(ctx.succeeding(id -> { }));
    assertTrue(ctx.awaitCompletion(HANG_SECONDS, TimeUnit.SECONDS), "linked to the second hub after the first dropped");
    assertEquals("member-b", link.memberId());
  }

  /**
   * Issue 35: a hub that goes silent without closing anything (a cut: here it welcomes the node, then reads nothing
   * more, so no ping is answered) is left once a ping goes unanswered for {@code edge.pongWithinSeconds} (1 s here,
   * pings every second), and the node links to the next hub. Before, it stayed on the dead link until TCP gave up.
   */
  @Test
  void aLinkThatGoesSilentIsLeftForTheNextHub(Vertx vertx, VertxTestContext ctx) throws Exception {
    NetServer mute = vertx.createNetServer(options("hub")).connectHandler(socket -> {
      new EdgePeer(vertx, socket, "node", EdgePeer.Limits.DEFAULT).welcome(new JsonObject().put("member", "member-a"));
      socket.pause();
    });
    mute.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(HANG_SECONDS, TimeUnit.SECONDS);
    NetServer second = hub(vertx, "hub", "member-b", peer -> { });
    EdgeNodeSettings base = settings(sha256(pem("hub-cert.pem")), mute, second);
    EdgeLinkVerticle link = new EdgeLinkVerticle(new EdgeNodeSettings(base.hubs(), base.certSha256(), 1, 1,
      base.handshakeSeconds(), 1), NODE, EdgePeer.Limits.DEFAULT);
    long[] firstAt = {0};
    link.onNewHub(() -> {
      if ("member-a".equals(link.memberId())) {
        firstAt[0] = System.nanoTime();
      } else if (firstAt[0] > 0) {
        ctx.verify(() -> {
          long ms = (System.nanoTime() - firstAt[0]) / 1_000_000;
          assertTrue(ms >= 1000, "left the silent hub after " + ms + " ms: before a ping went unanswered 1 s");
          ctx.completeNow();
        });
      }
    });
    vertx.deployVerticle(link).onComplete(ctx.succeeding(id -> { }));
    assertTrue(ctx.awaitCompletion(HANG_SECONDS, TimeUnit.SECONDS), "linked to the second hub after the first went silent");
    assertEquals("member-b", link.memberId());
  }

  /**
   * Issue 35: the nodes of a dead hub relink spread over {@code edge.relinkSpreadMs}, not in one instant, and later
   * tries drift apart (half to all of the backoff). 10,000 draws stand for 10,000 nodes losing one hub.
   */
  @Test
  void relinksAreSpreadOverTheSpreadAndBackoffsDriftApart() {
    long[] perTenth = new long[10];
    for (int i = 0; i < 10_000; i++) {
      long pause = EdgeLinkVerticle.relinkPause(1000);
      assertTrue(pause >= 1 && pause <= 1000, "pause " + pause);
      perTenth[(int) ((pause - 1) / 100)]++;
      long backoff = EdgeLinkVerticle.jittered(4000);
      assertTrue(backoff >= 2000 && backoff <= 4000, "backoff " + backoff);
    }
    for (long n : perTenth) {
      // each 100-ms slice gets about a tenth of the nodes: no instant holds them all
      assertTrue(n > 800 && n < 1200, java.util.Arrays.toString(perTenth));
    }
    assertEquals(1, EdgeLinkVerticle.jittered(0));
    assertEquals(1, EdgeLinkVerticle.relinkPause(0));
  }

  @Test
  void aHubWhoseCertificateIsNotThePinnedOneIsNeverReached(Vertx vertx, VertxTestContext ctx) throws Exception {
    int[] links = {0};
    NetServer impostor = hub(vertx, "other", "member-x", peer -> links[0]++);
    EdgeNodeSettings pinned = settings(sha256(pem("hub-cert.pem")), impostor);
    // without the pin (any certificate trusted) the impostor is reached: the pin is what refuses it
    var trusting = vertx.createNetClient(new io.vertx.core.net.NetClientOptions().setSsl(true).setTrustAll(true)
      .setHostnameVerificationAlgorithm("").setSslHandshakeTimeout(HANG_SECONDS)
      .setSslHandshakeTimeoutUnit(TimeUnit.SECONDS));
    var client = vertx.createNetClient(EdgeLinkVerticle.clientOptions(pinned));
    trusting.connect(impostor.actualPort(), "127.0.0.1").compose(socket -> socket.close())
      .compose(v -> client.connect(impostor.actualPort(), "127.0.0.1"))
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        // a refused certificate, not a handshake that ran out of time (SslHandshakeTimeoutException is one too)
        assertTrue(err instanceof SSLHandshakeException || err.getCause() instanceof SSLHandshakeException, err.toString());
        assertFalse(err instanceof SslHandshakeTimeoutException || err.getCause() instanceof SslHandshakeTimeoutException,
          err.toString());
        assertEquals(1, links[0], "only the client that trusted any certificate linked");
        ctx.completeNow();
      })));
  }

  @Test
  void nothingLeavesWhileNoHubIsLinked(Vertx vertx, VertxTestContext ctx) {
    EdgeLinkVerticle link = new EdgeLinkVerticle(new EdgeNodeSettings(List.of(new EdgeNodeSettings.Hub("127.0.0.1", 1)),
      "00".repeat(32), 15), NODE, EdgePeer.Limits.DEFAULT);
    vertx.deployVerticle(link).compose(id -> vertx.eventBus().request(Addresses.HUB_REGISTER,
        new StreamChunk("c", 1, "stdout", "x", false)))
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertEquals(FailureCode.NO_ELIGIBLE_NODE, FailureCode.of(err));
        assertEquals("no link to a hub yet", err.getMessage());
        ctx.completeNow();
      })));
  }
}
