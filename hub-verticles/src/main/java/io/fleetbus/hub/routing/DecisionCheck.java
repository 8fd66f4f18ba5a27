package io.fleetbus.hub.routing;

import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.hub.registry.NodeRecord;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.ControlOrder;
import io.fleetbus.shared.msg.NodeControl;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks a node's journal to arbitrate a deny or withdrawal (issue 34): a signed {@code refuse_call}, answered with the
 * node's proof. Only the node's proven word counts; a node this hub cannot reach (offline here, no answer in time, an
 * answer without its proof) is a 503 that decides nothing — the approval stays pending for another try, here or on
 * another hub.
 */
final class DecisionCheck {
  private static final Logger LOG = LoggerFactory.getLogger(DecisionCheck.class);
  /** A node journals a refusal in milliseconds (one fsync); one that does not answer within this is unreachable. */
  static final long TIMEOUT_MS = 4000;

  private DecisionCheck() {
  }

  static Future<JsonObject> refuse(Vertx vertx, NodeKeyring keyring, Future<NodeRecord> node, String nodeId,
                                   String callId, JsonObject decision) {
    return node.<NodeRecord>transform(ar -> ar.failed() && FailureCode.of(ar.cause()) == FailureCode.NOT_FOUND
      // a node no hub knows (revoked, or never enrolled) runs nothing: the refusal needs no journal there
      ? Future.succeededFuture(null) : (Future<NodeRecord>) ar).compose(n -> {
      if (n == null) {
        return Future.succeededFuture(new JsonObject().put("callId", callId).put("nodeId", nodeId).put("refused", true)
          .put("proof", "none: unknown node"));
      }
      if (!n.online()) {
        return Future.failedFuture(new IllegalStateException("it is offline as this hub sees it"));
      }
      return NodeControl.client(vertx).order(ControlOrder.refuseCall(nodeId, callId, decision, TIMEOUT_MS));
    }).compose(answer -> {
      if ("none: unknown node".equals(answer.getString("proof"))) {
        return Future.succeededFuture(NodeProofs.without(answer, "proof"));
      }
      String proof = answer == null ? null : answer.getString("proof");
      if (proof == null || !keyring.verify(nodeId, NodeProofs.DECISION, NodeProofs.without(answer, "proof"), proof)
        || !callId.equals(answer.getString("callId")) || !nodeId.equals(answer.getString("nodeId"))) {
        LOG.warn("decision answer dropped [call: {}, node: {}, reason: proof does not verify or answers another call]",
          callId, nodeId);
        return Future.failedFuture(new IllegalStateException("its answer did not carry its proof"));
      }
      return Future.succeededFuture(NodeProofs.without(answer, "proof"));
    }).recover(err -> Future.failedFuture(unreachable(nodeId, err)));
  }

  /** 503 naming the node and why, and that nothing was decided. */
  static io.fleetbus.shared.bus.FleetException unreachable(String nodeId, Throwable why) {
    return FailureCode.NO_ELIGIBLE_NODE.exception("cannot confirm the decision with node " + nodeId + " from this hub ("
      + why.getMessage() + "); the approval stays pending; retry later or on another hub");
  }
}
