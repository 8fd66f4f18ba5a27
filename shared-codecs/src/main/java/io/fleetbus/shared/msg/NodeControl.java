package io.fleetbus.shared.msg;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.Ask;
import io.fleetbus.shared.bus.LocalServices;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/**
 * The hub's one way out for control instructions ({@code fleet.hub.control}, hub-local): served by the verticle that
 * signs them, asked by whoever needs a node to act (cancel, rekey, config_update, call_status). Nodes refuse unsigned
 * control, so a cluster member cannot cancel calls or swap credentials.
 */
public interface NodeControl {
  /** Signs {@code order} for its node and answers with the node's reply; the ask waits 2 s beyond the node's time. */
  @Ask(address = Addresses.HUB_CONTROL, timeoutMs = 2000, plusWaitOf = 0)
  Future<JsonObject> order(ControlOrder order);

  static NodeControl client(Vertx vertx) {
    return LocalServices.client(vertx, NodeControl.class, Addresses.HUB_CONTROL);
  }

  /** Serves {@code control} (from the verticle that signs, in its start). */
  static Future<Void> serve(Vertx vertx, NodeControl control) {
    return LocalServices.bind(vertx, NodeControl.class, control, Addresses.HUB_CONTROL);
  }
}
