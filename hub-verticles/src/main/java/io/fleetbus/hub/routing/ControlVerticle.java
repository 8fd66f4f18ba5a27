package io.fleetbus.hub.routing;

import io.fleetbus.hub.auth.DirectiveSigner;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetReplies;
import io.fleetbus.shared.msg.Control;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;

/**
 * The one way out for control instructions (cancel, rekey, config_update): takes
 * {@code {nodeId, type, body[, timeoutMs]}} hub-locally, signs it for that node and relays the node's
 * answer. Nodes refuse unsigned control, so a cluster member cannot cancel calls or swap credentials.
 */
public final class ControlVerticle extends VerticleBase {
  private final DirectiveSigner signer;

  public ControlVerticle(DirectiveSigner signer) {
    this.signer = signer;
  }

  @Override
  public Future<?> start() {
    return vertx.eventBus().<JsonObject>localConsumer(Addresses.HUB_CONTROL, this::onControl).completion();
  }

  private void onControl(Message<JsonObject> msg) {
    JsonObject req = msg.body();
    String nodeId = req.getString("nodeId");
    if (nodeId == null || req.getString("type") == null) {
      msg.fail(FailureCode.BAD_REQUEST.code, "a control instruction needs nodeId and type");
      return;
    }
    Control signed = signer.sign(nodeId, new Control(req.getString("type"), req.getJsonObject("body")));
    vertx.eventBus().<JsonObject>request(Addresses.nodeControl(nodeId), signed,
        new DeliveryOptions().setSendTimeout(req.getLong("timeoutMs", 5000L)))
      .onSuccess(reply -> msg.reply(reply.body()))
      .onFailure(err -> FleetReplies.fail(msg, err));
  }
}
