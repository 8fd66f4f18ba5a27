package io.fleetbus.hub.routing;

import io.fleetbus.hub.auth.DirectiveSigner;
import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.ControlOrder;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.trust.CallSeal;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks a node "would you run this call?" before a person is asked to approve it: a signed {@link Control#DRY_RUN}
 * carrying the call, its arguments sealed for the node as a call's are, answered with the node's proof. The node runs
 * its own checks (tool, platform, capability tier, schema, allowlist, argument rules, path scope) and nothing else.
 * Only a proven refusal that no approval can change (400, 403, 413, 503) refuses the call at once; anything else — no
 * answer in time, an answer without the node's proof, a refusal that depends on what is on the node now (404 no such
 * file, 409) — lets the call park as before: the node checks everything again when it runs.
 */
final class DryCheck {
  private static final Logger LOG = LoggerFactory.getLogger(DryCheck.class);
  /** A node answers a dry check in milliseconds; one that does not within this is treated as unreachable. */
  static final long TIMEOUT_MS = 3000;
  /** Refusals that hold whatever a person decides and whatever happens on the node meanwhile. */
  private static final Set<Integer> FINAL = Set.of(FailureCode.BAD_REQUEST.code, FailureCode.FORBIDDEN.code,
    FailureCode.TOO_LARGE.code, FailureCode.NO_ELIGIBLE_NODE.code);

  /** How a node answered. */
  enum Verdict { ACCEPTED, REFUSED, UNKNOWN }

  /** A node's answer: {@code code} and {@code message} for a refusal, {@code message} says why for UNKNOWN. */
  record Answer(String nodeId, Verdict verdict, FailureCode code, String message) {
    boolean refused() {
      return verdict == Verdict.REFUSED;
    }

    JsonObject toJson() {
      return new JsonObject().put("nodeId", nodeId).put("verdict", verdict.name().toLowerCase())
        .put("code", code == null ? null : code.code).put("message", message);
    }
  }

  private final Vertx vertx;
  private final DirectiveSigner signer;
  private final NodeKeyring keyring;

  DryCheck(Vertx vertx, DirectiveSigner signer, NodeKeyring keyring) {
    this.vertx = vertx;
    this.signer = signer;
    this.keyring = keyring;
  }

  /** Asks {@code nodeId} about {@code call}; never fails (no answer is an UNKNOWN answer). */
  Future<Answer> ask(ToolCall call, String nodeId) {
    ToolCall forNode = call.withNode(nodeId).withSignature(null);
    byte[] key = keyring.sealKey(nodeId);
    ToolCall sealed = key == null || FaultSwitch.NO_CALL_SEALING.on() ? forNode
      : CallSeal.sealArgs(key, forNode);
    Control signed = signer.sign(nodeId, ControlOrder.dryRun(nodeId, sealed, TIMEOUT_MS).toControl());
    return vertx.eventBus().<JsonObject>request(Addresses.nodeControl(nodeId), signed,
        new DeliveryOptions().setSendTimeout(TIMEOUT_MS))
      .map(reply -> read(call, nodeId, reply.body()))
      .otherwise(err -> {
        LOG.info("dry check not answered: the call parks [call: {}, node: {}, reason: {}]", call.callId(), nodeId,
          err.getMessage());
        return new Answer(nodeId, Verdict.UNKNOWN, null, "no answer: " + err.getMessage());
      });
  }

  private Answer read(ToolCall call, String nodeId, JsonObject body) {
    String proof = body == null ? null : body.getString("proof");
    if (proof == null || !keyring.verify(nodeId, NodeProofs.DRY_RUN, NodeProofs.without(body, "proof"), proof)
      || !call.callId().equals(body.getString("callId")) || !nodeId.equals(body.getString("nodeId"))) {
      LOG.warn("dry check answer dropped [call: {}, node: {}, reason: proof does not verify or answers another call]",
        call.callId(), nodeId);
      return new Answer(nodeId, Verdict.UNKNOWN, null, "the answer did not carry the node's proof");
    }
    if (body.getBoolean("accepted", false)) {
      return new Answer(nodeId, Verdict.ACCEPTED, null, null);
    }
    FailureCode code = FailureCode.of(body.getInteger("code", FailureCode.TOOL_FAILED.code));
    String message = body.getString("message", "refused");
    if (!FINAL.contains(code.code)) {
      LOG.info("dry check: node refuses for now, the call parks [call: {}, node: {}, code: {}]", call.callId(), nodeId,
        code.code);
      return new Answer(nodeId, Verdict.UNKNOWN, code, message);
    }
    return new Answer(nodeId, Verdict.REFUSED, code, message);
  }
}
