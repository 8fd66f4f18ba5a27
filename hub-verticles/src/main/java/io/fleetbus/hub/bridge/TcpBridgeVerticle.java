package io.fleetbus.hub.bridge;

import io.fleetbus.hub.api.TokenCheck;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP event-bus bridge (4-byte length + JSON frames, the Vert.x TCP bridge's protocol) for scripts that are not
 * JavaScript: the same call address, token checks and "who sees what" as {@code /eventbus}. Each connection is served
 * by a {@link TcpBridgeConnection} of its own, so what goes out is filtered per connection by the caller its
 * registration proved ({@code authz.Access#hears}); the Vert.x library bridge could not (it hands every event on an
 * address to every connection registered there).
 */
public final class TcpBridgeVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(TcpBridgeVerticle.class);
  private final JWTAuth auth;
  private final String host;
  private final int port;
  private NetServer server;

  public TcpBridgeVerticle(JWTAuth auth, String host, int port) {
    this.auth = auth;
    this.host = host;
    this.port = port;
  }

  @Override
  public Future<?> start() {
    TokenCheck tokens = new TokenCheck(auth);
    server = vertx.createNetServer(new NetServerOptions());
    server.connectHandler(socket -> new TcpBridgeConnection(vertx, socket, tokens).start());
    return server.listen(port, host).onSuccess(s -> LOG.info("tcp bridge listening [address: {}:{}]", host, port));
  }

  @Override
  public Future<?> stop() {
    return server == null ? Future.succeededFuture() : server.close();
  }
}
