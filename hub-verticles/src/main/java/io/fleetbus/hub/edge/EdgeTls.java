package io.fleetbus.hub.edge;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetSocket;
import java.util.concurrent.Executor;

/**
 * TLS for the edge endpoint, added by the endpoint itself to a plain TCP connection it has let in (issue 35): a
 * connection over a cap is closed before any handshake, so a flood of them costs the hub an accept each, not a key
 * exchange and a signature. The handler goes first in the connection's pipeline in the accept itself, before any byte
 * is read, so the client's hello reaches it. The handshakes' CPU work (key exchange, signature) runs on a worker pool
 * of its own ({@code edge.handshakeThreads}, one by default): at most that many cores go to handshakes however many
 * clients connect at once, the rest stays with the links already proven; a relink storm waits its turn.
 */
final class EdgeTls {
  private static final String POOL = "fleetbus-edge-handshakes-";

  private final SslContext context;
  private final WorkerExecutor handshakes;
  private final Executor delegated;
  private final long handshakeWithinMs;

  private EdgeTls(SslContext context, WorkerExecutor handshakes, long handshakeWithinMs) {
    this.context = context;
    this.handshakes = handshakes;
    this.delegated = task -> handshakes.executeBlocking(() -> {
      HandshakePriority.lowerOnce();
      task.run();
      return null;
    }, false);
    this.handshakeWithinMs = handshakeWithinMs;
  }

  /** The server context for {@code certificate}, built on a worker (it reads the key). */
  static Future<EdgeTls> start(Vertx vertx, EdgeCertificate certificate, long handshakeWithinMs, int threads) {
    WorkerExecutor pool = vertx.createSharedWorkerExecutor(POOL + threads, threads);
    return vertx.executeBlocking(() -> SslContextBuilder.forServer(certificate.keyCert().getKeyManagerFactory(vertx))
        .sslProvider(SslProvider.JDK).build(), false)
      .map(context -> new EdgeTls(context, pool, handshakeWithinMs))
      .onFailure(err -> pool.close());
  }

  /** Puts TLS in front of {@code socket} (on its event loop, in its connect handler: before any byte is read). */
  void secure(NetSocket socket) {
    ChannelHandlerContext channel = ((NetSocketInternal) socket).channelHandlerContext();
    SslHandler handler = context.newHandler(channel.alloc(), delegated);
    handler.setHandshakeTimeoutMillis(handshakeWithinMs);
    channel.pipeline().addFirst("ssl", handler);
  }

  void close() {
    handshakes.close();
  }
}
