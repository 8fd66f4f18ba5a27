package io.fleetbus.hub.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fleetbus.shared.edge.EdgePeer;
import io.fleetbus.shared.fault.FaultSwitches;
import io.fleetbus.shared.msg.Codecs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * What a client without a credential can make the edge endpoint hold (issue 35): before an accepted hello a frame may
 * be 64 KiB at most (16 connections each announcing a 16-MiB frame once put a hub into OOM), and only so many links may
 * be unproven at once. Shown with the old limits too: the same client then gets a whole 1-MiB frame buffered.
 */
@ExtendWith(VertxExtension.class)
class EdgeEndpointLimitsTest {
  private static final int ONE_MIB = 1 << 20;

  @TempDir
  Path keys;
  private final List<NetClient> clients = new ArrayList<>();
  private final ListAppender<ILoggingEvent> closes = new ListAppender<>();

  @AfterEach
  void detach() {
    ((Logger) LoggerFactory.getLogger(EdgePeer.class)).detachAppender(closes);
  }

  private EdgeEndpointVerticle deploy(Vertx vertx, EdgePeer.Limits limits, int maxUnproven) throws Exception {
    return deploy(vertx, limits, maxUnproven, maxUnproven);
  }

  private EdgeEndpointVerticle deploy(Vertx vertx, EdgePeer.Limits limits, int maxUnproven, int perAddress)
    throws Exception {
    return deploy(vertx, limits, maxUnproven, perAddress, 30);
  }

  private EdgeEndpointVerticle deploy(Vertx vertx, EdgePeer.Limits limits, int maxUnproven, int perAddress,
                                      int helloWithinSeconds) throws Exception {
    if (!closes.isStarted()) {
      Codecs.register(vertx);
      closes.start();
      ((Logger) LoggerFactory.getLogger(EdgePeer.class)).addAppender(closes);
    }
    EdgeEndpointVerticle endpoint = new EdgeEndpointVerticle(new EdgeSettings("127.0.0.1", 0, 60, limits, maxUnproven,
      perAddress, helloWithinSeconds, null),
      EdgeCertificate.loadOrCreate(keys, "hub-test"), "member-h", FaultSwitches.none());
    vertx.deployVerticle(endpoint).toCompletionStage().toCompletableFuture().get();
    return endpoint;
  }

  private Future<NetSocket> connect(Vertx vertx, EdgeEndpointVerticle endpoint) {
    NetClient client = vertx.createNetClient(new NetClientOptions().setSsl(true).setTrustAll(true)
      .setHostnameVerificationAlgorithm(""));
    clients.add(client);
    return client.connect(endpoint.actualPort(), "127.0.0.1");
  }

  /** Announces a 1-MiB frame, then sends its body in 64-KiB pieces as long as the link stays open; the close reason. */
  private Future<String> sendBigFrameBeforeHello(Vertx vertx, EdgeEndpointVerticle endpoint) {
    Promise<String> closed = Promise.promise();
    connect(vertx, endpoint).onSuccess(socket -> {
      socket.closeHandler(v -> closed.tryComplete(lastClose()));
      socket.write(Buffer.buffer().appendInt(ONE_MIB)).onSuccess(v -> {
        Buffer junk = Buffer.buffer(new byte[64 << 10]);
        for (int i = 0; i < 16; i++) {
          socket.write(junk);
        }
      });
    }).onFailure(closed::tryFail);
    return closed.future();
  }

  private String lastClose() {
    return closes.list.stream().map(ILoggingEvent::getFormattedMessage).filter(m -> m.startsWith("edge link closed"))
      .reduce((a, b) -> b).orElse("(no close logged)");
  }

  @Test
  void aLargeFrameBeforeAnAcceptedHelloClosesTheLinkBeforeItsBodyIsRead(Vertx vertx, VertxTestContext ctx)
    throws Exception {
    EdgeEndpointVerticle endpoint = deploy(vertx, EdgePeer.Limits.DEFAULT, 8);
    sendBigFrameBeforeHello(vertx, endpoint).onComplete(ctx.succeeding(reason -> ctx.verify(() -> {
      assertTrue(reason.contains("a frame of " + ONE_MIB + " bytes (at most " + EdgePeer.Limits.UNPROVEN_FRAME_BYTES
        + " before the link proved who it is)"), reason);
      ctx.completeNow();
    })));
  }

  @Test
  void withTheOldLimitsTheSameClientGetsAWholeMegabyteBuffered(Vertx vertx, VertxTestContext ctx) throws Exception {
    EdgePeer.Limits old = new EdgePeer.Limits(16 << 20, 5000, 16 << 20);
    EdgeEndpointVerticle endpoint = deploy(vertx, old, 8);
    sendBigFrameBeforeHello(vertx, endpoint).onComplete(ctx.succeeding(reason -> ctx.verify(() -> {
      // the hub read all of it, and closed only because it was not JSON
      assertTrue(reason.contains("a frame that is not a JSON object"), reason);
      ctx.completeNow();
    })));
  }

  @Test
  void linksBeyondTheUnprovenLimitAreRefusedBeforeTheirHandshake(Vertx vertx, VertxTestContext ctx) throws Exception {
    EdgeEndpointVerticle endpoint = deploy(vertx, EdgePeer.Limits.DEFAULT, 2);
    List<NetSocket> held = new ArrayList<>();
    List<NetSocket> closedEarly = new java.util.concurrent.CopyOnWriteArrayList<>();
    connect(vertx, endpoint).compose(a -> {
      held.add(a);
      a.closeHandler(v -> closedEarly.add(a));
      return connect(vertx, endpoint);
    }).compose(b -> {
      held.add(b);
      b.closeHandler(v -> closedEarly.add(b));
      return connect(vertx, endpoint);
    }).onComplete(third -> ctx.verify(() -> {
      // the endpoint closed the third TCP connection before any TLS: the client's handshake fails
      assertTrue(third.failed(), "the third link is refused before its handshake");
      assertEquals(2, held.size());
      assertEquals(List.of(), closedEarly, "the endpoint closes only the link over the limit");
      ctx.completeNow();
    }));
  }

  /**
   * One address may hold only so many unproven links (edge.maxUnprovenLinksPerAddress), so one client cannot take every
   * place the total cap leaves: its third link here is closed at once, while an endpoint with a cap as large as the
   * total welcomes the same third link (the cap is what refuses it).
   */
  @Test
  void linksBeyondTheCapOfOneAddressAreClosedWithoutItTheyAreWelcomed(Vertx vertx, VertxTestContext ctx)
    throws Exception {
    EdgeEndpointVerticle capped = deploy(vertx, EdgePeer.Limits.DEFAULT, 8, 2);
    EdgeEndpointVerticle uncapped = deploy(vertx, EdgePeer.Limits.DEFAULT, 8, 8);
    Future<String> cappedThird = thirdLink(vertx, capped);
    Future<String> uncappedThird = thirdLink(vertx, uncapped);
    Future.all(cappedThird, uncappedThird).onComplete(ctx.succeeding(v -> ctx.verify(() -> {
      assertEquals("closed", cappedThird.result());
      assertEquals("welcomed", uncappedThird.result());
      ctx.completeNow();
    })));
  }

  /**
   * Holds two links from 127.0.0.1, then opens a third: "welcomed" when the endpoint's welcome comes, "closed" when the
   * endpoint closes it (before its TLS handshake: the client's connect fails).
   */
  private Future<String> thirdLink(Vertx vertx, EdgeEndpointVerticle endpoint) {
    return connect(vertx, endpoint).compose(a -> connect(vertx, endpoint)).compose(b -> connect(vertx, endpoint)
      .compose(third -> {
        Promise<String> what = Promise.promise();
        third.handler(welcome -> what.tryComplete("welcomed"));
        third.closeHandler(v -> what.tryComplete("closed"));
        return what.future();
      }, refused -> Future.succeededFuture("closed")));
  }

  /**
   * A client that connects and then says nothing, or dribbles a hello too slowly to finish (slowloris), holds its place
   * only until edge.helloWithinSeconds: then the link is closed and its place is free again.
   */
  @Test
  void aLinkWithoutAnAcceptedHelloIsClosedAtTheHelloDeadline(Vertx vertx, VertxTestContext ctx) throws Exception {
    EdgeEndpointVerticle endpoint = deploy(vertx, EdgePeer.Limits.DEFAULT, 8, 8, 1);
    long started = System.nanoTime();
    connect(vertx, endpoint).onComplete(ctx.succeeding(socket -> {
      // a frame announced, then one byte of it at a time: never a whole hello
      socket.write(Buffer.buffer().appendInt(1000).appendByte((byte) '{'));
      long dribble = vertx.setPeriodic(200, t -> socket.write(Buffer.buffer(" ")));
      socket.closeHandler(v -> ctx.verify(() -> {
        vertx.cancelTimer(dribble);
        long ms = (System.nanoTime() - started) / 1_000_000;
        assertTrue(lastClose().contains("no accepted hello within 1000 ms (edge.helloWithinSeconds)"), lastClose());
        assertTrue(ms >= 900, "closed after " + ms + " ms");
        ctx.completeNow();
      }));
    }));
  }
}
