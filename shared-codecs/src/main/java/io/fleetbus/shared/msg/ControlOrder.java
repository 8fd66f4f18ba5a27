package io.fleetbus.shared.msg;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.TimeBound;
import io.vertx.core.json.JsonObject;

/**
 * A control instruction for one node as a hub verticle hands it to {@link NodeControl} ({@code fleet.hub.control}),
 * which signs it for that node and relays the node's answer. Made by the factories below, the one place each kind's
 * body is built; the constructor refuses (400, naming what is missing) an order without a node, a kind or a field its
 * kind needs. {@code timeoutMs} is how long the node has to answer. Travels by reference (hub-local).
 */
public record ControlOrder(String nodeId, Control.Kind kind, JsonObject body, long timeoutMs) implements TimeBound {
  /** How long a node has to answer an order that says nothing else. */
  public static final long DEFAULT_TIMEOUT_MS = 5000;

  public ControlOrder {
    if (nodeId == null || nodeId.isBlank()) {
      throw FailureCode.BAD_REQUEST.exception("a control order needs the node it is for");
    }
    if (kind == null) {
      throw FailureCode.BAD_REQUEST.exception("a control order for node '" + nodeId + "' needs its kind");
    }
    body = body == null ? new JsonObject() : body;
    kind.check(body);
    timeoutMs = timeoutMs > 0 ? timeoutMs : DEFAULT_TIMEOUT_MS;
  }

  /** Stop call {@code callId}'s process tree ({@code by} the person who asked). */
  public static ControlOrder cancel(String nodeId, String callId, String by) {
    return new ControlOrder(nodeId, Control.Kind.CANCEL, new JsonObject().put("callId", callId).put("by", by), 0);
  }

  /** How call {@code callId} ended, the node waiting up to {@code waitMs} while it still runs. */
  public static ControlOrder callStatus(String nodeId, String callId, long waitMs) {
    return new ControlOrder(nodeId, Control.Kind.CALL_STATUS, new JsonObject().put("callId", callId)
      .put("waitMs", waitMs), waitMs + DEFAULT_TIMEOUT_MS);
  }

  /** What the node's journal holds of call {@code callId} once it is journaled there (waiting up to {@code waitMs}). */
  public static ControlOrder callJournaled(String nodeId, String callId, long waitMs) {
    return new ControlOrder(nodeId, Control.Kind.CALL_STATUS, new JsonObject().put("callId", callId)
      .put("journaledMs", waitMs), waitMs + 1000);
  }

  /** A new credential, sealed ({@code box}) with the node's current one and bound to {@code nonce}. */
  public static ControlOrder rekey(String nodeId, String nonce, String box) {
    return new ControlOrder(nodeId, Control.Kind.REKEY, new JsonObject().put("nonce", nonce).put("box", box), 0);
  }

  /** New settings (heartbeatIntervalMs, allowlist, logPaths, labels), answered with the node's effective ones. */
  public static ControlOrder configUpdate(String nodeId, JsonObject update) {
    return new ControlOrder(nodeId, Control.Kind.CONFIG_UPDATE, update, 10_000);
  }

  /** Would the node run {@code call} (its arguments sealed for it)? */
  public static ControlOrder dryRun(String nodeId, ToolCall call, long timeoutMs) {
    return new ControlOrder(nodeId, Control.Kind.DRY_RUN, new JsonObject().put("call", call.toJson()), timeoutMs);
  }

  /** Journal on the node that call {@code callId} never runs: {@code decision} = {@code {decision, by, hub, at}}. */
  public static ControlOrder refuseCall(String nodeId, String callId, JsonObject decision, long timeoutMs) {
    return new ControlOrder(nodeId, Control.Kind.REFUSE_CALL, new JsonObject().put("callId", callId)
      .put("decision", decision), timeoutMs);
  }

  /** The instruction as it goes to the node, before the hub signs it. */
  public Control toControl() {
    return new Control(kind.wire, body);
  }
}
