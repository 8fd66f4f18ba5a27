package io.fleetbus.hub.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.edge.EdgePeer;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.NodeHello;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hub's edge endpoint on a plain Vert.x (no cluster; a stand-in registry answers hellos): a link must prove itself
 * with an accepted hello before anything it sends is relayed, and the hub closes a link that does not.
 */
@ExtendWith(VertxExtension.class)
class EdgeEndpointTest {
  @TempDir
  Path keys;
  private EdgeEndpointVerticle endpoint;
  /** Held for the test's length: Vert.x closes a client nobody holds (and its connections) when it is collected. */
  private NetClient client;

  @BeforeEach
  void deploy(Vertx vertx) throws Exception {
    Codecs.register(vertx);
    // the stand-in registry knows no node: every hello is refused as a real one refuses an unenrolled node
    vertx.eventBus().<NodeHello>localConsumer(Addresses.HUB_REGISTER, m -> m.fail(FailureCode.UNAUTHORIZED.code,
      "unknown node " + m.body().nodeId() + ": enroll it first"));
    endpoint = new EdgeEndpointVerticle(new EdgeSettings("127.0.0.1", 0, 60, EdgePeer.Limits.DEFAULT),
      EdgeCertificate.loadOrCreate(keys, "hub-test"), "member-h");
    vertx.deployVerticle(endpoint).toCompletionStage().toCompletableFuture().get();
  }

  /** A raw client of the endpoint (trusting any certificate); {@code welcome} completes with the hub's first frame. */
  private Future<EdgePeer> link(Vertx vertx, Promise<JsonObject> welcome) {
    client = vertx.createNetClient(new NetClientOptions().setSsl(true).setTrustAll(true)
      .setHostnameVerificationAlgorithm(""));
    return client.connect(endpoint.actualPort(), "127.0.0.1")
      .map(socket -> new EdgePeer(vertx, socket, "hub", EdgePeer.Limits.DEFAULT).onWelcome(welcome::tryComplete).start());
  }

  @Test
  void aMessageBeforeAnAcceptedHelloIsRefusedAndTheLinkClosed(Vertx vertx, VertxTestContext ctx) {
    Promise<JsonObject> welcome = Promise.promise();
    link(vertx, welcome).onComplete(ctx.succeeding(peer -> welcome.future().onSuccess(w -> {
      ctx.verify(() -> assertEquals("member-h", w.getString("member")));
      peer.request(Addresses.HEARTBEAT, new Heartbeat("edge-1", "forged", 1, 0, null, "x"), null, 5000)
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          assertEquals(FailureCode.UNAUTHORIZED, FailureCode.of(err), err.getMessage());
          peer.closed().onComplete(ctx.succeeding(reason -> ctx.completeNow()));
        })));
    })));
  }

  @Test
  void aRefusedHelloClosesTheLink(Vertx vertx, VertxTestContext ctx) {
    Promise<JsonObject> welcome = Promise.promise();
    link(vertx, welcome).onComplete(ctx.succeeding(peer -> welcome.future().onSuccess(w -> {
      NodeHello hello = new NodeHello("stranger", "i1", w.getString("member"), "linux", "sudo", new JsonObject(), "0.1.0",
        List.of(), null, null);
      peer.request(Addresses.HUB_REGISTER, hello, null, 5000).onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertEquals(FailureCode.UNAUTHORIZED, FailureCode.of(err), err.getMessage());
        assertTrue(err.getMessage().contains("enroll it first"), err.getMessage());
        peer.closed().onComplete(ctx.succeeding(reason -> ctx.completeNow()));
      })));
    })));
  }
}
