package io.fleetbus.shared.msg;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.util.Arrays;
import java.util.List;

/**
 * A hub → node instruction on the node's control address: cancel, config_update, rekey, call_status, dry_run or
 * refuse_call.
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
  /**
   * A hub's deny or withdrawal of a call's approval, for the node's journal to arbitrate (issue 34): {@code {callId,
   * decision: {decision, by, hub, at}}} → {@code {callId, nodeId, refused: true}} when the journal now refuses the call
   * for good, or {@code {callId, nodeId, refused: false, journal: {state, refusal?}}} when it held the call already
   * (delivered first, or refused by another decision first); with the node's proof either way.
   */
  public static final String REFUSE_CALL = "refuse_call";

  /**
   * The kinds of control instruction, each with its wire name and the body fields it cannot do without: the one list
   * the hub builds them from ({@link ControlOrder}) and the node reads them by ({@link #kind()}).
   */
  public enum Kind {
    CANCEL(Control.CANCEL, "callId"),
    CONFIG_UPDATE(Control.CONFIG_UPDATE),
    REKEY(Control.REKEY, "nonce", "box"),
    CALL_STATUS(Control.CALL_STATUS, "callId"),
    DRY_RUN(Control.DRY_RUN, "call"),
    REFUSE_CALL(Control.REFUSE_CALL, "callId", "decision");

    public final String wire;
    private final List<String> required;

    Kind(String wire, String... required) {
      this.wire = wire;
      this.required = List.of(required);
    }

    /** The kind named {@code wire}; 400 naming the known ones when there is none. */
    public static Kind of(String wire) {
      for (Kind k : values()) {
        if (k.wire.equals(wire)) {
          return k;
        }
      }
      throw FailureCode.BAD_REQUEST.exception("unknown control type '" + wire + "': one of "
        + Arrays.stream(values()).map(k -> k.wire).toList());
    }

    /** 400 naming the first field {@code body} lacks. */
    void check(JsonObject body) {
      for (String field : required) {
        if (body.getValue(field) == null) {
          throw FailureCode.BAD_REQUEST.exception("a " + wire + " control needs '" + field + "' in its body");
        }
      }
      if (this == CONFIG_UPDATE && body.isEmpty()) {
        throw FailureCode.BAD_REQUEST.exception("a config_update control needs at least one setting in its body");
      }
    }
  }

  public Control {
    body = body == null ? new JsonObject() : body;
  }

  /** What this instruction is: 400 for a type no kind has. */
  public Kind kind() {
    return Kind.of(type);
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
