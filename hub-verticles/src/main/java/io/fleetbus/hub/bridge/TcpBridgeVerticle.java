package io.fleetbus.hub.bridge;

import io.fleetbus.hub.api.TokenCheck;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import java.util.HashMap;
import java.util.Map;
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
  private final TcpBridgeLimits limits;
  /** Connections no token of which has verified yet, with the address each comes from. */
  private final Map<TcpBridgeConnection, String> unauthenticated = new HashMap<>();
  private NetServer server;

  public TcpBridgeVerticle(JWTAuth auth, String host, int port) {
    this(auth, host, port, TcpBridgeLimits.DEFAULT);
  }

  public TcpBridgeVerticle(JWTAuth auth, String host, int port, TcpBridgeLimits limits) {
    this.auth = auth;
    this.host = host;
    this.port = port;
    this.limits = limits;
  }

  @Override
  public Future<?> start() {
    TokenCheck tokens = new TokenCheck(auth);
    server = vertx.createNetServer(new NetServerOptions());
    server.connectHandler(socket -> {
      TcpBridgeConnection connection = new TcpBridgeConnection(vertx, socket, tokens, limits, unauthenticated::remove);
      String from = socket.remoteAddress() == null ? "?" : socket.remoteAddress().hostAddress();
      String refusal = refusal(from);
      unauthenticated.put(connection, from);
      connection.start();
      if (refusal != null) {
        connection.refuse(refusal);
      }
    });
    return server.listen(port, host).onSuccess(s -> LOG.info("tcp bridge listening [address: {}:{}]", host, port));
  }

  /** Why one more unauthenticated connection from {@code from} is refused at once, or null. */
  private String refusal(String from) {
    if (unauthenticated.size() >= limits.maxUnauthenticatedConnections()) {
      return limits.maxUnauthenticatedConnections() + " connections have no valid token yet"
        + " (frontends.tcpBridge.maxUnauthenticatedConnections allows more)";
    }
    long fromThere = unauthenticated.values().stream().filter(from::equals).count();
    return fromThere < limits.maxUnauthenticatedConnectionsPerAddress() ? null : fromThere + " connections from " + from
      + " have no valid token yet (frontends.tcpBridge.maxUnauthenticatedConnectionsPerAddress allows more)";
  }

  /** The port it listens on (0 in the conf: the one the system gave). */
  public int actualPort() {
    return server.actualPort();
  }

  @Override
  public Future<?> stop() {
    return server == null ? Future.succeededFuture() : server.close();
  }
}
