package io.fleetbus.hub.bridge;

import io.fleetbus.hub.settings.SockJsLimits;
import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.api.Frontend;
import io.fleetbus.hub.api.OriginCheck;
import io.fleetbus.hub.api.TokenCheck;
import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Vertx;
import io.vertx.ext.bridge.PermittedOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.sockjs.SockJSBridgeOptions;
import io.vertx.ext.web.handler.sockjs.SockJSHandler;

/**
 * {@code /eventbus}: the SockJS event-bus bridge for browsers and Node.js (deny by default; see {@link BridgeGuard}).
 * Sockets without a valid token yet are bounded by {@link SockJsLimits}.
 */
public final class SockJsBridge implements Frontend {
  public static final String PATH = ApiRoutes.SOCKJS_PATH;

  private final TokenCheck tokens;
  private final OriginCheck origins;
  private final SockJsLimits limits;

  public SockJsBridge(TokenCheck tokens, OriginCheck origins, SockJsLimits limits) {
    this.tokens = tokens;
    this.origins = origins;
    this.limits = limits;
  }

  @Override
  public void mount(Vertx vertx, Router root, CallSubmitter calls) {
    SockJSBridgeOptions options = new SockJSBridgeOptions()
      .addInboundPermitted(new PermittedOptions().setAddress(Addresses.BRIDGE_CALL))
      .addOutboundPermitted(new PermittedOptions().setAddress(Addresses.EVENTS))
      .addOutboundPermitted(new PermittedOptions().setAddress(Addresses.HEARTBEAT));
    BridgeGuard guard = new BridgeGuard(tokens, new SockJsAdmission(vertx, limits));
    root.route(PATH + "/*").handler(origins);
    root.route(PATH + "/*").subRouter(SockJSHandler.create(vertx).bridge(options, e -> guard.handle(e, e.socket())));
  }
}
