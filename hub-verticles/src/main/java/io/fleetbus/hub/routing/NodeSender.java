package io.fleetbus.hub.routing;

import io.fleetbus.hub.auth.DirectiveSigner;
import io.fleetbus.hub.enrollment.CallTargets;
import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.hub.registry.NodeRecord;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.CallStages;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetReplies;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.CallSeal;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last hop of a call: signs it for its node (and seals its arguments), sends it across the cluster, and accepts
 * only an answer that carries that node's proof. Right after a node (re)joins its subscription may not have reached
 * this hub yet, so NO_HANDLERS is retried briefly (as is a replaced process of the node, "superseded"); a reply
 * timeout is never retried (the tool may have run). Calls in flight are remembered by node, so a node that leaves
 * fails them at once. Confined to the router's event loop.
 */
final class NodeSender {
  private static final Logger LOG = LoggerFactory.getLogger(NodeSender.class);

  private final Vertx vertx;
  private final ToolCatalog catalog;
  private final DirectiveSigner signer;
  private final NodeKeyring keyring;
  private final long noHandlersRetryMs;
  /** The node process the registry knows now, for a call a replaced process refused. */
  private final Function<String, Future<NodeRecord>> lookup;
  /** Answers dropped for want of the node's proof. */
  private final AtomicLong droppedAnswers = new AtomicLong();
  /** Calls sent and not yet answered, by node, so a node that leaves fails them at once. */
  private final Map<String, Map<String, Promise<ToolResult>>> inFlight = new HashMap<>();
  /**
   * Nodes whose member left (or whose edge link closed) and that are not online again: a call routed on a registry
   * record read just before the node went offline there is not sent into the void (it would wait its whole timeout).
   */
  private final Set<String> gone = new HashSet<>();

  NodeSender(Vertx vertx, ToolCatalog catalog, DirectiveSigner signer, NodeKeyring keyring, long noHandlersRetryMs,
             Function<String, Future<NodeRecord>> lookup) {
    this.vertx = vertx;
    this.catalog = catalog;
    this.signer = signer;
    this.keyring = keyring;
    this.noHandlersRetryMs = noHandlersRetryMs;
    this.lookup = lookup;
  }

  /** Answers (results or failures) dropped so far because they did not carry the called node's proof. */
  long answersDropped() {
    return droppedAnswers.get();
  }

  /**
   * The node's member left the cluster ({@code member_left}), the node now answers through another member
   * ({@code member_changed}: an edge node relinked to another hub), or the edge link it answered through closed
   * ({@code link_lost}): its calls in flight will never be answered, so end them now.
   */
  void nodeGone(String nodeId, String reason) {
    if ("member_changed".equals(reason)) {
      gone.remove(nodeId); // it is reachable again, through its new member
    } else {
      gone.add(nodeId);
    }
    Map<String, Promise<ToolResult>> calls = inFlight.remove(nodeId);
    if (calls == null) {
      return;
    }
    String how = switch (reason == null ? "" : reason) {
      case "member_changed" -> "moved to another cluster member (the one relaying its calls was lost)";
      case "link_lost" -> "lost the edge link its calls went through";
      default -> "left the cluster";
    };
    // a copy: failing an answer runs its completion, which removes the call from this very map
    for (Map.Entry<String, Promise<ToolResult>> call : new ArrayList<>(calls.entrySet())) {
      call.getValue().tryFail(FailureCode.NO_ELIGIBLE_NODE.exception("node '" + nodeId + "' " + how
        + " while the call was running; the outcome is unknown — query GET /api/v1/calls/" + call.getKey()));
    }
  }

  /** The node is online again (the monitor heard it): calls go to it again. */
  void nodeBack(String nodeId) {
    gone.remove(nodeId);
  }

  /** A node's proof over a result it gives about call {@code callId} (a call's answer, or its status later). */
  boolean proves(String nodeId, String callId, ToolResult result) {
    return result != null && callId.equals(result.callId())
      && keyring.verify(nodeId, NodeProofs.RESULT, result.toJson(), result.proof());
  }

  /**
   * Sends one call to the node process the registry knows ({@code instanceId}), remembered as in flight so a node
   * that leaves fails it at once.
   */
  Future<ToolResult> send(ToolCall call, String instanceId) {
    if (gone.contains(call.nodeId())) {
      // the registry's record said online, but the node's member has left since (the registry hears it a moment later)
      return Future.failedFuture(FailureCode.NO_ELIGIBLE_NODE.exception("node '" + call.nodeId() + "' left the cluster"
        + " before the call was sent; it did not run"));
    }
    Long until = ApprovedUntil.of(vertx, call.callId());
    if (until != null && until <= System.currentTimeMillis()) {
      return Future.failedFuture(FailureCode.APPROVAL_EXPIRED.exception("the approval of call " + call.callId()
        + " expired at " + java.time.Instant.ofEpochMilli(until) + " before the call could be delivered; it did not run"));
    }
    long deadline = System.currentTimeMillis() + noHandlersRetryMs;
    Promise<ToolResult> answer = Promise.promise();
    Map<String, Promise<ToolResult>> calls = inFlight.computeIfAbsent(call.nodeId(), k -> new HashMap<>());
    calls.put(call.callId(), answer);
    send(call, instanceId, deadline, 50, answer);
    return answer.future().onComplete(ar -> {
      calls.remove(call.callId());
      if (calls.isEmpty()) {
        inFlight.remove(call.nodeId(), calls);
      }
    });
  }

  private void send(ToolCall call, String instanceId, long deadline, long backoffMs, Promise<ToolResult> answer) {
    // every call a node runs carries the hub's signature over exactly this call (node, process, tool, args, expiry)
    // an approved call is signed for no longer than its approval is valid: the node refuses it after that (issue 34)
    Long until = ApprovedUntil.of(vertx, call.callId());
    ToolCall signed = sealed(signer.sign(call, catalog.require(call.tool()).tier(), instanceId,
      until == null ? Long.MAX_VALUE : Math.max(1, until - System.currentTimeMillis())));
    CallStages.mark(call.callId(), CallStages.Stage.SENT);
    // its output counts only when this node proves it (VerifiedFacts); a call without a stream is done at its answer
    CallTargets.sent(vertx, call.callId(), call.nodeId());
    if (!call.stream()) {
      answer.future().onComplete(ar -> CallTargets.done(vertx, call.callId()));
    }
    vertx.eventBus().<ToolResult>request(Addresses.nodeCall(call.nodeId()), signed,
        new DeliveryOptions().setSendTimeout(call.timeoutMs()))
      .onSuccess(reply -> {
        if (CallStages.ON) {
          CallStages.mark(call.callId(), CallStages.Stage.ANSWER_RECEIVED);
          CallStages.fromNode(call.callId(), reply.headers().get(CallStages.HEADER));
        }
        if (reply.headers().contains(FleetReplies.PROVEN_FAILURE)) {
          ToolResult failure = reply.body();
          if (proves(call.nodeId(), call.callId(), failure)) {
            failed(call, instanceId, deadline, backoffMs, answer, new ReplyException(ReplyFailure.RECIPIENT_FAILURE,
              failure.errorCode() == null ? FailureCode.TOOL_FAILED.code : failure.errorCode(), failure.errorMessage()));
          } else {
            dropped(call, "failure", answer);
          }
          return;
        }
        accept(call, reply.body(), answer);
      })
      .onFailure(err -> {
        if (err instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE
          // fault switch for tests: failures believed without the node's proof (the behaviour before issue 15)
          && !FaultSwitch.UNPROVEN_FAILURES.on()) {
          // a node proves its failures (a reply with FleetReplies.PROVEN_FAILURE): a bare one came from someone else
          dropped(call, "failure (" + re.failureCode() + ": " + re.getMessage() + ")", answer);
          return;
        }
        failed(call, instanceId, deadline, backoffMs, answer, err);
      });
  }

  /** A failure that counts: retried when nobody ran the call (no handler yet, or a superseded process), else final. */
  private void failed(ToolCall call, String instanceId, long deadline, long backoffMs, Promise<ToolResult> answer,
                      Throwable err) {
    boolean noHandlers = err instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS;
    boolean superseded = err instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE
      && re.failureCode() == FailureCode.CONFLICT.code && String.valueOf(re.getMessage()).startsWith("superseded");
    if ((noHandlers || superseded) && System.currentTimeMillis() + backoffMs < deadline) {
      LOG.debug("not delivered yet, retrying [call: {}, node: {}, reason: {}, in: {} ms]", call.callId(), call.nodeId(),
        superseded ? "superseded process" : "no handler", backoffMs);
      vertx.setTimer(backoffMs, t -> (superseded ? lookup.apply(call.nodeId()).map(NodeRecord::instanceId)
          : Future.succeededFuture(instanceId))
        .onComplete(now -> send(call, now.succeeded() ? now.result() : instanceId, deadline, backoffMs * 2, answer)));
    } else {
      answer.tryFail(err);
    }
  }

  /**
   * The signed call with its arguments sealed for its node (the signature covers the plain arguments' digest, which the
   * node checks after opening them). {@code -Dfleetbus.fault.noCallSealing=true}: sent in clear, as before issue 15.
   */
  private ToolCall sealed(ToolCall signed) {
    byte[] key = keyring.sealKey(signed.nodeId());
    return key == null || FaultSwitch.NO_CALL_SEALING.on() ? signed : CallSeal.sealArgs(key, signed);
  }

  /** An answer without the node's proof: dropped; the outcome is unknown (GET /calls/{id} asks the node itself). */
  private void dropped(ToolCall call, String what, Promise<ToolResult> answer) {
    droppedAnswers.incrementAndGet();
    LOG.warn("result dropped [call: {}, node: {}, reason: proof does not verify, answer: {}]", call.callId(), call.nodeId(),
      what);
    answer.tryFail(FailureCode.TOOL_FAILED.exception("the answer to call " + call.callId() + " did not carry node '"
      + call.nodeId() + "''s proof and was dropped (another cluster member may have answered in its place); the outcome"
      + " is unknown: GET /api/v1/calls/" + call.callId() + " asks the node"));
  }

  /** Only the node that was called can prove an answer: anything else (a member answering in its place) is dropped. */
  private void accept(ToolCall call, ToolResult sealedResult, Promise<ToolResult> answer) {
    ToolResult result;
    try {
      result = sealedResult == null ? null : keyring.open(call.nodeId(), sealedResult);
    } catch (IllegalArgumentException e) {
      dropped(call, "result that does not open with the node's credential", answer);
      return;
    }
    if (proves(call.nodeId(), call.callId(), result)) {
      CallStages.mark(call.callId(), CallStages.Stage.ANSWER_CHECKED);
      answer.tryComplete(result.withProof(null));
    } else {
      dropped(call, result != null && !call.callId().equals(result.callId())
        ? "result of another call (" + result.callId() + "): a replay" : "result", answer);
    }
  }
}
