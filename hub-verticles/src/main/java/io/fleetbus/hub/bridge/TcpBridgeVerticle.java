package io.fleetbus.hub.bridge;

import io.fleetbus.hub.authz.Access;
import io.vertx.core.json.JsonObject;
import io.fleetbus.hub.api.PublicEvents;
import io.fleetbus.hub.api.TokenCheck;
import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.net.NetServerOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.bridge.BridgeOptions;
import io.vertx.ext.bridge.PermittedOptions;
import io.vertx.ext.eventbus.bridge.tcp.TcpEventBusBridge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP event-bus bridge (4-byte length + JSON frames) for scripts that are not JavaScript: the same
 * call address and guard as {@code /eventbus}. This bridge has no hook on outgoing messages, so
 * heartbeats (records with a credential field) reach it as JSON through {@link Addresses#BRIDGE_HEARTBEAT_JSON}.
 */
public final class TcpBridgeVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(TcpBridgeVerticle.class);
  private final JWTAuth auth;
  private final String host;
  private final int port;
  private TcpEventBusBridge bridge;

  public TcpBridgeVerticle(JWTAuth auth, String host, int port) {
    this.auth = auth;
    this.host = host;
    this.port = port;
  }

  @Override
  public Future<?> start() {
    BridgeOptions options = new BridgeOptions()
      .addInboundPermitted(new PermittedOptions().setAddress(Addresses.BRIDGE_CALL))
      .addOutboundPermitted(new PermittedOptions().setAddress(Addresses.BRIDGE_HEARTBEAT_JSON));
    // no per-connection hook on what goes out here: only the events every signed-in user may hear (Access)
    Access.PUBLIC_EVENT_TYPES.forEach(type -> options.addOutboundPermitted(new PermittedOptions()
      .setAddress(Addresses.EVENTS).setMatch(new JsonObject().put("type", type))));
    BridgeGuard guard = new BridgeGuard(new TokenCheck(auth));
    DeliveryOptions local = new DeliveryOptions().setLocalOnly(true);
    var relay = vertx.eventBus().consumer(Addresses.HEARTBEAT,
      m -> vertx.eventBus().publish(Addresses.BRIDGE_HEARTBEAT_JSON, PublicEvents.toJson(m.body()), local));
    bridge = TcpEventBusBridge.create(vertx, options, new NetServerOptions(), guard::handle);
    return relay.completion().compose(v -> bridge.listen(port, host))
      .onSuccess(b -> LOG.info("tcp bridge listening [address: {}:{}]", host, port));
  }

  @Override
  public Future<?> stop() {
    return bridge == null ? Future.succeededFuture() : bridge.close();
  }
}
