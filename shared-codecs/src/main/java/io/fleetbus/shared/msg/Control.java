package io.fleetbus.shared.msg;

import io.vertx.core.json.JsonObject;

/**
 * A hub → node instruction on the node's control address: cancel, config_update, rekey, call_status or dry_run.
 * {@code signature} is the hub's signed directive over type, node and body; the node acts on nothing else.
 */
public record Control(String type, JsonObject body, String signature) {

  public static final String CANCEL = "cancel";
  public static final String CONFIG_UPDATE = "config_update";
  public static final String REKEY = "rekey";
  /** Asks how a call ended: {@code {callId}} → {@code {callId, state: running|done|interrupted|not_received, result?}}. */
  public static final String CALL_STATUS = "call_status";
  /**
   * Would the node run this call? {@code {call}} (a ToolCall, its arguments sealed for the node) →
   * {@code {callId, nodeId, accepted, code?, message?, proof}}: the node runs its own checks for the call (tool,
   * platform, capability tier, schema, allowlist, argument rules, path scope) and nothing else. The hub asks before it
   * parks a tier-3 call for a person. Signed as a control instruction, so it can never be taken for the call itself.
   */
  public static final String DRY_RUN = "dry_run";

  public Control {
    body = body == null ? new JsonObject() : body;
  }

  public Control(String type, JsonObject body) {
    this(type, body, null);
  }

  public Control withSignature(String sig) {
    return new Control(type, body, sig);
  }

  public JsonObject toJson() {
    return new JsonObject().put("type", type).put("body", body).put("signature", signature);
  }

  public static Control fromJson(JsonObject j) {
    return new Control(j.getString("type"), j.getJsonObject("body"), j.getString("signature"));
  }
}
