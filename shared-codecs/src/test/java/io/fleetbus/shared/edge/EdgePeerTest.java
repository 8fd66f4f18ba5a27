package io.fleetbus.shared.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.StreamChunk;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Two ends of an edge link over a real TCP connection: asks and answers, failures, and the limits that cut a link. */
@ExtendWith(VertxExtension.class)
class EdgePeerTest {
  private final Promise<EdgePeer> serverSide = Promise.promise();
  private NetServer server;
  /** Held for the test's length: Vert.x closes a client nobody holds (and its connections) when it is collected. */
  private io.vertx.core.net.NetClient client;

  @BeforeEach
  void listen(Vertx vertx) throws Exception {
    server = vertx.createNetServer().connectHandler(socket -> serverSide.complete(
      new EdgePeer(vertx, socket, "node", new EdgePeer.Limits(4096, 50))));
    server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private Future<NetSocket> connect(Vertx vertx) {
    client = vertx.createNetClient();
    return client.connect(server.actualPort(), "127.0.0.1");
  }

  @Test
  void anAskIsAnsweredWithItsRecordAndHeaders(Vertx vertx, VertxTestContext ctx) {
    serverSide.future().onSuccess(hub -> hub.onMessage(in -> {
      StreamChunk chunk = (StreamChunk) in.body();
      hub.reply(in.replyId(), new JsonObject().put("got", chunk.data()).put("address", in.address()),
        MultiMap.caseInsensitiveMultiMap().add("fb-x", in.headers().get("fb-y")));
    }).start());
    connect(vertx).onComplete(ctx.succeeding(socket -> {
      EdgePeer node = new EdgePeer(vertx, socket, "hub", EdgePeer.Limits.DEFAULT).start();
      node.request("fleet.hub.register", new StreamChunk("c1", 1, "stdout", "hello", false),
          MultiMap.caseInsensitiveMultiMap().add("fb-y", "yes"), 5000)
        .onComplete(ctx.succeeding(answer -> ctx.verify(() -> {
          assertEquals(new JsonObject().put("got", "hello").put("address", "fleet.hub.register"), answer.body());
          assertEquals("yes", answer.headers().get("fb-x"));
          ctx.completeNow();
        })));
    }));
  }

  @Test
  void aFailureKeepsItsCodeAndALostLinkEndsTheAskAsUnknown(Vertx vertx, VertxTestContext ctx) {
    var checks = ctx.checkpoint(2);
    serverSide.future().onSuccess(hub -> hub.onMessage(in -> {
      if (in.address().equals("refuse")) {
        hub.fail(in.replyId(), 403, "not yours");
      } else {
        hub.close("test closes the link");
      }
    }).start());
    connect(vertx).onComplete(ctx.succeeding(socket -> {
      EdgePeer node = new EdgePeer(vertx, socket, "hub", EdgePeer.Limits.DEFAULT).start();
      node.request("refuse", null, null, 5000).onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertEquals(FailureCode.FORBIDDEN, FailureCode.of(err));
        assertEquals("not yours", err.getMessage());
        checks.flag();
        node.request("hang up", null, null, 60_000).onComplete(ctx.failing(lost -> ctx.verify(() -> {
          assertEquals(FailureCode.TIMEOUT, FailureCode.of(lost), lost.getMessage());
          assertTrue(lost.getMessage().contains("outcome is unknown"), lost.getMessage());
          checks.flag();
        })));
      })));
    }));
  }

  @Test
  void anOversizedFrameCutsTheLink(Vertx vertx, VertxTestContext ctx) {
    serverSide.future().onSuccess(hub -> {
      hub.start();
      hub.closed().onComplete(ctx.succeeding(reason -> ctx.verify(() -> {
        assertTrue(reason.contains("a frame of 100000 bytes"), reason);
        ctx.completeNow();
      })));
    });
    connect(vertx).onComplete(ctx.succeeding(socket -> socket.write(Buffer.buffer().appendInt(100_000))));
  }

  @Test
  void aFloodingPeerIsCut(Vertx vertx, VertxTestContext ctx) {
    serverSide.future().onSuccess(hub -> {
      hub.start();
      hub.closed().onComplete(ctx.succeeding(reason -> ctx.verify(() -> {
        assertTrue(reason.startsWith("flooding"), reason);
        ctx.completeNow();
      })));
    });
    connect(vertx).onComplete(ctx.succeeding(socket -> {
      Buffer many = Buffer.buffer();
      for (int i = 0; i < 200; i++) {
        many.appendBuffer(EdgeFrames.encode(new JsonObject().put("t", "ping")));
      }
      socket.write(many);
    }));
  }

  @Test
  void aFrameThatIsNotJsonCutsTheLink(Vertx vertx, VertxTestContext ctx) {
    serverSide.future().onSuccess(hub -> {
      hub.start();
      hub.closed().onComplete(ctx.succeeding(reason -> ctx.verify(() -> {
        assertEquals("a frame that is not a JSON object", reason);
        ctx.completeNow();
      })));
    });
    connect(vertx).onComplete(ctx.succeeding(socket -> socket.write(Buffer.buffer().appendInt(3).appendString("abc"))));
  }
}
