package io.fleetbus.hub.routing;

import io.fleetbus.hub.auth.DirectiveSigner;
import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.hub.registry.NodeRecord;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.CallStages;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.bus.FleetReplies;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.CallSeal;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends an approved call to its node — the named one, the least loaded of those a selector picks, or
 * all of them (fan-out) — and hands back the answer. Refuses calls no node may take (unknown 404,
 * offline 503, capability tier 403, platform 400) before anything crosses the cluster. Before a call parks for a
 * person, checks it ({@link #CHECK}): the same rules, and the node's own dry check ({@link DryCheck}).
 * Right after a node (re)joins its subscription may not have reached this hub yet, so NO_HANDLERS is
 * retried briefly; a reply timeout is never retried (the tool may have run). Each call leaves signed
 * for its node, and an answer counts only with that node's proof.
 */
public final class RouterVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(RouterVerticle.class);

  private final ToolCatalog catalog;
  private final long noHandlersRetryMs;
  private final NodePicker picker = new NodePicker();
  public static final String ACTION = "action";
  /** {@link #ACTION} of a request that only checks a call before it parks for approval (see {@link #check}). */
  public static final String CHECK = "check";
  private final DirectiveSigner signer;
  private final NodeKeyring keyring = new NodeKeyring();
  private DryCheck dryCheck;
  /** Answers dropped for want of the node's proof. */
  private final java.util.concurrent.atomic.AtomicLong droppedAnswers = new java.util.concurrent.atomic.AtomicLong();
  /** Calls sent and not yet answered, by node, so a node that leaves fails them at once. */
  private final Map<String, Map<String, Promise<ToolResult>>> inFlight = new HashMap<>();

  public RouterVerticle(ToolCatalog catalog, long noHandlersRetryMs, DirectiveSigner signer) {
    this.catalog = catalog;
    this.noHandlersRetryMs = noHandlersRetryMs;
    this.signer = signer;
  }

  @Override
  public Future<?> start() {
    dryCheck = new DryCheck(vertx, signer, keyring);
    return Future.all(
      keyring.follow(vertx),
      vertx.eventBus().<ToolCall>localConsumer(Addresses.HUB_ROUTE, this::onRoute).completion(),
      vertx.eventBus().<JsonObject>localConsumer(Addresses.HUB_NODE_GONE, this::onNodeGone).completion(),
      vertx.eventBus().<JsonObject>localConsumer(Addresses.HUB_CALL_STATUS, this::onCallStatus).completion());
  }

  /** Asks a node how a call ended; a result in its answer counts only with the node's proof, like a call's answer. */
  private void onCallStatus(Message<JsonObject> msg) {
    String nodeId = msg.body().getString("nodeId");
    String callId = msg.body().getString("callId");
    long waitMs = msg.body().getLong("waitMs", 0L);
    vertx.eventBus().<JsonObject>request(Addresses.HUB_CONTROL, new JsonObject().put("nodeId", nodeId)
          .put("type", io.fleetbus.shared.msg.Control.CALL_STATUS).put("timeoutMs", waitMs + 5000)
          .put("body", new JsonObject().put("callId", callId).put("waitMs", waitMs)),
        new DeliveryOptions().setLocalOnly(true).setSendTimeout(waitMs + 7000))
      .onSuccess(reply -> {
        JsonObject answer = reply.body();
        JsonObject result = answer.getJsonObject("result");
        if (result != null) {
          ToolResult r = ToolResult.fromJson(result);
          if (!callId.equals(r.callId()) || !keyring.verify(nodeId, NodeProofs.RESULT, r.toJson(), r.proof())) {
            LOG.warn("call status dropped [call: {}, node: {}, reason: proof does not verify]", callId, nodeId);
            msg.fail(FailureCode.UNAUTHORIZED.code, "node '" + nodeId + "''s answer about call " + callId
              + " does not carry its proof");
            return;
          }
          answer.put("result", r.withProof(null).toJson());
        }
        msg.reply(answer);
      })
      .onFailure(err -> FleetReplies.fail(msg, err));
  }

  /** The node's member left the cluster: its calls in flight will never be answered, so end them now. */
  private void onNodeGone(Message<JsonObject> msg) {
    String nodeId = msg.body().getString("nodeId");
    Map<String, Promise<ToolResult>> calls = inFlight.remove(nodeId);
    if (calls == null) {
      return;
    }
    calls.forEach((callId, answer) -> answer.tryFail(FailureCode.NO_ELIGIBLE_NODE.exception("node '" + nodeId
      + "' left the cluster while the call was running; the outcome is unknown — query GET /api/v1/calls/" + callId)));
  }

  private void onRoute(Message<ToolCall> msg) {
    ToolCall call = msg.body();
    if (CHECK.equals(msg.headers().get(ACTION))) {
      check(call).onComplete(ar -> {
        if (ar.succeeded()) {
          msg.reply(ar.result());
        } else {
          FleetReplies.fail(msg, ar.cause());
        }
      });
      return;
    }
    CallStages.mark(call.callId(), CallStages.Stage.ROUTER_RECEIVED);
    Future<?> outcome;
    try {
      ToolSpec spec = catalog.require(call.tool());
      if (call.nodeId() != null) {
        outcome = lookup(call.nodeId()).compose(node -> {
          Eligibility.require(node, spec);
          return sendTracked(call, node.instanceId()).map(r -> (Object) r);
        });
      } else {
        Selector selector = Selector.fromJson(call.selector() == null ? new JsonObject() : call.selector());
        outcome = candidates().compose(all -> {
          List<NodeRecord> eligible = Eligibility.select(all, spec, selector);
          Map<String, String> instances = new HashMap<>();
          eligible.forEach(n -> instances.put(n.nodeId(), n.instanceId()));
          NodeRecord one = selector.fanOut() ? null : pick(eligible, spec);
          Future<ToolResult> sent = selector.fanOut()
            ? FanOut.run(call, selector, eligible.stream().map(NodeRecord::nodeId).toList(),
              child -> sendTracked(child, instances.get(child.nodeId())))
            : sendTracked(call.withNode(one.nodeId()), one.instanceId());
          return sent.map(r -> (Object) r);
        });
      }
    } catch (FleetException e) {
      outcome = Future.failedFuture(e);
    }
    outcome.onComplete(ar -> {
      if (ar.succeeded()) {
        msg.reply(ar.result());
      } else {
        FleetException fe = describe(call, ar.cause());
        msg.fail(fe.code().code, fe.getMessage());
      }
    });
  }

  private NodeRecord pick(List<NodeRecord> eligible, ToolSpec spec) {
    return picker.pick(eligible, spec.annotations().getBoolean("gpuHint", false));
  }

  /**
   * What is known before a person is asked to approve a call: whether it can run at all, and where. Answers
   * {@code {nodes?, refusal?, checked}}: {@code refusal} {code, message, by} when no approval can make it run (the
   * node's capability tier or platform, no eligible node, or the node's own dry check refused it); for a selector,
   * {@code nodes} fixes where the approved call runs (one node, or every eligible one for a fan-out). A named node that
   * is unknown or offline is not refused: the call parks as before and is checked when it runs.
   */
  private Future<JsonObject> check(ToolCall call) {
    ToolSpec spec;
    try {
      spec = catalog.require(call.tool());
    } catch (FleetException e) {
      return Future.succeededFuture(refusal(e.code(), e.getMessage(), "policy"));
    }
    if (call.nodeId() != null) {
      return lookup(call.nodeId()).transform(found -> {
        if (found.failed()) {
          return Future.succeededFuture(new JsonObject().put("checked", new JsonObject().put(call.nodeId(),
            "not checked: " + found.cause().getMessage())));
        }
        NodeRecord node = found.result();
        try {
          Eligibility.requireCapable(node, spec);
        } catch (FleetException e) {
          return Future.succeededFuture(refusal(e.code(), e.getMessage(), "policy"));
        }
        if (!node.online()) {
          return Future.succeededFuture(new JsonObject().put("checked", new JsonObject().put(node.nodeId(),
            "not checked: offline")));
        }
        return dryCheck.ask(call, node.nodeId()).map(answer -> answer.refused()
          ? refusal(answer.code(), "node '" + node.nodeId() + "' refuses " + spec.name() + ": " + answer.message(),
            "node " + node.nodeId())
          : new JsonObject().put("checked", new JsonObject().put(node.nodeId(), answer.toJson())));
      });
    }
    Selector selector = Selector.fromJson(call.selector() == null ? new JsonObject() : call.selector());
    return candidates().compose(all -> {
      List<NodeRecord> eligible;
      try {
        eligible = Eligibility.select(all, spec, selector);
      } catch (FleetException e) {
        return Future.succeededFuture(refusal(e.code(), e.getMessage(), "policy"));
      }
      List<Future<DryCheck.Answer>> asked = eligible.stream().map(n -> dryCheck.ask(call, n.nodeId())).toList();
      return Future.join(asked).transform(done -> {
        JsonObject checked = new JsonObject();
        List<NodeRecord> willing = new java.util.ArrayList<>();
        DryCheck.Answer firstRefusal = null;
        for (int i = 0; i < eligible.size(); i++) {
          DryCheck.Answer a = asked.get(i).result();
          checked.put(a.nodeId(), a.toJson());
          if (a.refused()) {
            firstRefusal = firstRefusal == null ? a : firstRefusal;
          } else {
            willing.add(eligible.get(i));
          }
        }
        if (willing.isEmpty()) {
          return Future.succeededFuture(refusal(firstRefusal.code(), (eligible.size() == 1 ? "node '"
            + firstRefusal.nodeId() + "' refuses " : "every eligible node refuses " + spec.name() + "; node '"
            + firstRefusal.nodeId() + "': ") + firstRefusal.message(), "node " + firstRefusal.nodeId())
            .put("checked", checked));
        }
        // a fan-out keeps every eligible node (a refusal shows in its result); one call goes to a willing node
        List<NodeRecord> nodes = selector.fanOut() ? eligible : List.of(pick(willing, spec));
        return Future.succeededFuture(new JsonObject().put("nodes",
          new JsonArray(nodes.stream().map(NodeRecord::nodeId).toList())).put("checked", checked));
      });
    });
  }

  private static JsonObject refusal(FailureCode code, String message, String by) {
    return new JsonObject().put("refusal", new JsonObject().put("code", code.code).put("message", message).put("by", by));
  }

  private Future<NodeRecord> lookup(String nodeId) {
    return RegistryBus.client(vertx).lookup(nodeId);
  }

  private Future<List<NodeRecord>> candidates() {
    return RegistryBus.client(vertx).candidates();
  }

  /**
   * Sends one call to the node process the registry knows ({@code instanceId}), remembered as in flight so a node
   * that leaves fails it at once.
   */
  private Future<ToolResult> sendTracked(ToolCall call, String instanceId) {
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

  /**
   * Retried only when nobody ran the call: no handler yet (a node's subscription still spreading), or a replaced
   * process of the node refused it ("superseded") — then it goes to the process the registry knows now.
   */
  private void send(ToolCall call, String instanceId, long deadline, long backoffMs, Promise<ToolResult> answer) {
    // every call a node runs carries the hub's signature over exactly this call (node, process, tool, args, expiry)
    ToolCall signed = sealed(signer.sign(call, catalog.require(call.tool()).tier(), instanceId));
    CallStages.mark(call.callId(), CallStages.Stage.SENT);
    vertx.eventBus().<ToolResult>request(Addresses.nodeCall(call.nodeId()), signed,
        new DeliveryOptions().setSendTimeout(call.timeoutMs()))
      .onSuccess(reply -> {
        if (CallStages.ON) {
          CallStages.mark(call.callId(), CallStages.Stage.ANSWER_RECEIVED);
          CallStages.fromNode(call.callId(), reply.headers().get(CallStages.HEADER));
        }
        if (reply.headers().contains(FleetReplies.PROVEN_FAILURE)) {
          ToolResult failure = reply.body();
          if (proven(call, failure)) {
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
          && !Boolean.getBoolean("fleetbus.fault.unprovenFailures")) {
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
      vertx.setTimer(backoffMs, t -> (superseded ? lookup(call.nodeId()).map(NodeRecord::instanceId)
          : Future.succeededFuture(instanceId))
        .onComplete(now -> send(call, now.succeeded() ? now.result() : instanceId, deadline, backoffMs * 2, answer)));
    } else {
      answer.tryFail(err);
    }
  }

  /** Answers (results or failures) dropped so far because they did not carry the called node's proof. */
  public long answersDropped() {
    return droppedAnswers.get();
  }

  /** The node's proof, over an answer to this very call: a proved answer to another call is a replay. */
  private boolean proven(ToolCall call, ToolResult result) {
    return result != null && call.callId().equals(result.callId())
      && keyring.verify(call.nodeId(), NodeProofs.RESULT, result.toJson(), result.proof());
  }

  /**
   * The signed call with its arguments sealed for its node (the signature covers the plain arguments' digest, which the
   * node checks after opening them). {@code -Dfleetbus.fault.noCallSealing=true}: sent in clear, as before issue 15.
   */
  private ToolCall sealed(ToolCall signed) {
    byte[] key = keyring.sealKey(signed.nodeId());
    return key == null || Boolean.getBoolean("fleetbus.fault.noCallSealing") ? signed : CallSeal.sealArgs(key, signed);
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
    if (proven(call, result)) {
      answer.tryComplete(result.withProof(null));
    } else {
      dropped(call, result != null && !call.callId().equals(result.callId())
        ? "result of another call (" + result.callId() + "): a replay" : "result", answer);
    }
  }

  private static FleetException describe(ToolCall call, Throwable err) {
    if (err instanceof FleetException fe) {
      return fe;
    }
    if (err instanceof ReplyException re) {
      if (re.failureType() == ReplyFailure.TIMEOUT) {
        LOG.warn("call timed out [call: {}, node: {}, tool: {}, afterMs: {}]", call.callId(), call.nodeId(), call.tool(),
          call.timeoutMs());
        return FailureCode.TIMEOUT.exception("node '" + call.nodeId() + "' did not answer " + call.tool() + " within "
          + call.timeoutMs() + " ms; the outcome is unknown — query GET /api/v1/calls/" + call.callId());
      }
      if (re.failureType() == ReplyFailure.NO_HANDLERS) {
        return FailureCode.NO_ELIGIBLE_NODE.exception("node '" + call.nodeId()
          + "' is not reachable on the bus (it may have stopped or just restarted); try again shortly");
      }
      return FailureCode.of(re.failureCode()).exception(re.getMessage());
    }
    LOG.error("routing failed [call: {}]", call.callId(), err);
    return FailureCode.TOOL_FAILED.exception("routing failed: " + err.getMessage());
  }
}
