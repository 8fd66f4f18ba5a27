package io.fleetbus.hub.metrics;

import io.fleetbus.hub.calls.CallEvents;
import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log line per call this hub finished, in the bracketed key/value form the other hub logs use.
 * Arguments and error messages are left out: either may hold a secret a caller typed.
 */
public final class CallLogVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger("fleetbus.calls");

  @Override
  public Future<?> start() {
    return vertx.eventBus().<JsonObject>localConsumer(Addresses.EVENTS, this::onEvent).completion();
  }

  private void onEvent(Message<JsonObject> msg) {
    JsonObject e = msg.body();
    // another hub's call (relayed here for this hub's listeners) is that hub's to log
    if (!CallEvents.FINISHED.equals(e.getString("type")) || msg.headers().contains(Addresses.RELAYED_HEADER)) {
      return;
    }
    Long latency = e.getLong("latencyMs");
    LOG.info("call finished [call: {}, node: {}, tool: {}, tier: {}, by: {}, outcome: {}, code: {}, durationMs: {}]",
      e.getString("callId"), e.getString("nodeId"), e.getString("tool"), e.getInteger("tier"), e.getString("principal"),
      e.getString("status"), e.getInteger("code"), latency == null ? e.getLong("durationMs") : latency);
  }
}
