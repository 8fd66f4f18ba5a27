package io.fleetbus.hub.routing;

import io.fleetbus.hub.auth.DirectiveSigner;
import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.hub.registry.NodeRecord;
import io.fleetbus.hub.registry.NodeView;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.CallStages;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.ControlOrder;
import io.fleetbus.shared.msg.NodeControl;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routing step of the request path ({@link RoutingService}, served on {@link RoutingBus}): sends an approved call
 * to its node — the named one, the least loaded of those a selector picks, or all of them (fan-out) — and hands back
 * the answer. Refuses calls no node may take (unknown 404, offline 503, capability tier 403, platform 400) before
 * anything crosses the cluster. Plans a call before it parks for a person ({@link RoutePlanner}). The last hop —
 * signing, sealing, retries, proofs, calls in flight — is {@link NodeSender}'s.
 */
public final class RouterVerticle extends VerticleBase implements RoutingService {
  private static final Logger LOG = LoggerFactory.getLogger(RouterVerticle.class);

  private final ToolCatalog catalog;
  private final long noHandlersRetryMs;
  private final NodePicker picker = new NodePicker();
  private final DirectiveSigner signer;
  private final NodeKeyring keyring = new NodeKeyring();
  /** The registry's nodes, read in place; null: asked of the registry on the bus (a verticle tested on its own). */
  private final NodeView nodes;
  private NodeSender sender;
  private RoutePlanner planner;

  public RouterVerticle(ToolCatalog catalog, long noHandlersRetryMs, DirectiveSigner signer) {
    this(catalog, noHandlersRetryMs, signer, null);
  }

  /** @param nodes the registry's view of the nodes (the hub's): no request to the registry verticle per call */
  public RouterVerticle(ToolCatalog catalog, long noHandlersRetryMs, DirectiveSigner signer, NodeView nodes) {
    this.catalog = catalog;
    this.noHandlersRetryMs = noHandlersRetryMs;
    this.signer = signer;
    this.nodes = nodes;
  }

  @Override
  public Future<?> start() {
    sender = new NodeSender(vertx, catalog, signer, keyring, noHandlersRetryMs, this::lookup);
    DryCheck dryCheck = new DryCheck(vertx, signer, keyring);
    planner = new RoutePlanner(catalog, this::lookup, this::candidates, dryCheck::ask, this::pick);
    return Future.all(
      keyring.follow(vertx),
      RoutingBus.serve(vertx, this),
      vertx.eventBus().<JsonObject>localConsumer(Addresses.HUB_NODE_GONE,
        msg -> sender.nodeGone(msg.body().getString("nodeId"), msg.body().getString("reason"))).completion(),
      vertx.eventBus().<JsonObject>localConsumer(Addresses.HUB_NODE_BACK,
        msg -> sender.nodeBack(msg.body().getString("nodeId"))).completion());
  }

  /** Answers (results or failures) dropped so far because they did not carry the called node's proof. */
  public long answersDropped() {
    return sender == null ? 0 : sender.answersDropped();
  }

  @Override
  public Future<RoutePlan> plan(ToolCall call) {
    return planner.plan(call);
  }

  @Override
  public Future<ToolResult> route(ToolCall call) {
    CallStages.mark(call.callId(), CallStages.Stage.ROUTER_RECEIVED);
    Future<ToolResult> outcome;
    try {
      ToolSpec spec = catalog.require(call.tool());
      outcome = call.nodeId() != null ? lookup(call.nodeId()).compose(node -> {
        Eligibility.require(node, spec);
        return sender.send(call, node.instanceId());
      }) : routeSelected(call, spec);
    } catch (FleetException e) {
      outcome = Future.failedFuture(e);
    }
    return outcome.recover(err -> Future.failedFuture(describe(call, err)));
  }

  /**
   * A call by selector: its eligible nodes now, narrowed to those its plan pinned (a tier-3 call was resolved before it
   * parked, so it runs on the nodes a person approved); one of them, or all of them for a fan-out.
   */
  private Future<ToolResult> routeSelected(ToolCall call, ToolSpec spec) {
    Selector selector = Selector.fromJson(call.selector() == null ? new JsonObject() : call.selector());
    return candidates().compose(all -> {
      List<NodeRecord> eligible = Eligibility.select(all, spec, selector);
      if (selector.fanOut()) {
        Map<String, String> instances = new HashMap<>();
        eligible.forEach(n -> instances.put(n.nodeId(), n.instanceId()));
        return FanOut.run(call, selector, eligible.stream().map(NodeRecord::nodeId).toList(),
          child -> sender.send(child, instances.get(child.nodeId())));
      }
      NodeRecord one = pick(eligible, spec);
      return sender.send(call.withNode(one.nodeId()), one.instanceId());
    });
  }

  /** Asks a node how a call ended; a result in its answer counts only with the node's proof, like a call's answer. */
  @Override
  public Future<JsonObject> callStatus(String nodeId, String callId, long waitMs) {
    return proven(nodeId, callId, NodeControl.client(vertx).order(ControlOrder.callStatus(nodeId, callId, waitMs)));
  }

  @Override
  public Future<JsonObject> callJournaled(String nodeId, String callId, long waitMs) {
    return proven(nodeId, callId, NodeControl.client(vertx).order(ControlOrder.callJournaled(nodeId, callId, waitMs)));
  }

  /** A node's status answer; a result in it counts only with the node's proof, like a call's answer. */
  private Future<JsonObject> proven(String nodeId, String callId, Future<JsonObject> asked) {
    return asked
      .compose(answer -> {
        if (answer.getJsonObject("refusal") != null) {
          String proof = answer.getString("proof");
          if (proof == null || !keyring.verify(nodeId, NodeProofs.DECISION, NodeProofs.without(answer, "proof"), proof)
            || !callId.equals(answer.getString("callId"))) {
            return Future.failedFuture(FailureCode.UNAUTHORIZED.exception("node '" + nodeId + "''s refusal of call "
              + callId + " does not carry its proof"));
          }
          answer.remove("proof");
        }
        JsonObject result = answer.getJsonObject("result");
        if (result != null) {
          ToolResult r = ToolResult.fromJson(result);
          if (!sender.proves(nodeId, callId, r)) {
            LOG.warn("call status dropped [call: {}, node: {}, reason: proof does not verify]", callId, nodeId);
            return Future.failedFuture(FailureCode.UNAUTHORIZED.exception("node '" + nodeId + "''s answer about call "
              + callId + " does not carry its proof"));
          }
          answer.put("result", r.withProof(null).toJson());
        }
        return Future.succeededFuture(answer);
      });
  }

  @Override
  public Future<Void> reachable(String nodeId) {
    // a node no hub knows (revoked, never enrolled) has no journal to arbitrate: its call fails as routing says (404)
    return lookup(nodeId).transform(ar -> ar.succeeded() && ar.result().online()
      || ar.failed() && FailureCode.of(ar.cause()) == FailureCode.NOT_FOUND ? Future.<Void>succeededFuture()
      : Future.failedFuture(DecisionCheck.unreachable(nodeId, new IllegalStateException(ar.failed()
      ? ar.cause().getMessage() : "it is offline as this hub sees it"))));
  }

  @Override
  public Future<JsonObject> refuseCall(String nodeId, String callId, JsonObject decision) {
    return DecisionCheck.refuse(vertx, keyring, lookup(nodeId), nodeId, callId, decision);
  }

  private NodeRecord pick(List<NodeRecord> eligible, ToolSpec spec) {
    return picker.pick(eligible, spec.annotations().getBoolean("gpuHint", false));
  }

  private Future<NodeRecord> lookup(String nodeId) {
    return nodes != null ? nodes.lookup(nodeId) : RegistryBus.client(vertx).lookup(nodeId);
  }

  private Future<List<NodeRecord>> candidates() {
    return nodes != null ? Future.succeededFuture(nodes.candidates()) : RegistryBus.client(vertx).candidates();
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
