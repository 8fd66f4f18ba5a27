package io.fleetbus.hub.routing;

import io.fleetbus.hub.auth.DirectiveSigner;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.ControlOrder;
import io.fleetbus.shared.msg.NodeControl;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;

/**
 * The one way out for control instructions (cancel, rekey, config_update, call_status): serves {@link NodeControl}
 * hub-locally, signs each {@link ControlOrder} for its node and relays the node's answer. Nodes refuse unsigned
 * control, so a cluster member cannot cancel calls or swap credentials.
 */
public final class ControlVerticle extends VerticleBase implements NodeControl {
  private final DirectiveSigner signer;

  public ControlVerticle(DirectiveSigner signer) {
    this.signer = signer;
  }

  @Override
  public Future<?> start() {
    return NodeControl.serve(vertx, this);
  }

  @Override
  public Future<JsonObject> order(ControlOrder order) {
    Control signed = signer.sign(order.nodeId(), order.toControl());
    return vertx.eventBus().<JsonObject>request(Addresses.nodeControl(order.nodeId()), signed,
        new DeliveryOptions().setSendTimeout(order.timeoutMs()))
      .map(Message::body);
  }
}
