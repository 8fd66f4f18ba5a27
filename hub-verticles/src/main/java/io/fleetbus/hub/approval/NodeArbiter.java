package io.fleetbus.hub.approval;

import io.fleetbus.hub.consent.Approval;
import io.fleetbus.hub.routing.RoutingService;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Decisions during a split (issue 34): the target node's journal arbitrates. A deny or withdrawal is told to anyone
 * only once every node the call would run on has journaled it as a refusal (flushed), so a later delivery of the call
 * — an approval from the other half of a split — is refused there; an approval needs the node reachable from this hub
 * (its delivery is what the node journals). The first decision to reach the node wins; a second one gets 409 naming
 * it; a hub that cannot reach the node answers 503 and stores nothing. {@code -Dfleetbus.fault.hubDecidesAlone=true}:
 * hubs decide alone, as before.
 */
final class NodeArbiter {
  /** One node's part of a call: the call id it journals there (a fan-out's per-node child has its own). */
  record Target(String nodeId, String callId) {
  }

  /** How long an approver's answer waits for the node to journal the approved call it was just sent. */
  static final long JOURNALED_WAIT_MS = 3000;
  /** An expiry its node could not journal is tried again after this (the approval stays pending, unapprovable). */
  static final long EXPIRY_RETRY_MS = 10_000;

  private final Vertx vertx;
  private final RoutingService routing;
  private final String hubId;
  private final ApprovalBook approvals;

  NodeArbiter(Vertx vertx, RoutingService routing, String hubId, ApprovalBook approvals) {
    this.vertx = vertx;
    this.routing = routing;
    this.hubId = hubId;
    this.approvals = approvals;
  }

  /**
   * A refusal the node journaled is the decision: {@code change} (from pending), and it also replaces an approval this
   * half decided meanwhile (its call's delivery is refused by that journal, and its approver hears 409).
   */
  static Function<Approval, Approval> journaled(Function<Approval, Approval> change, String by) {
    return a -> Approval.APPROVED.equals(a.status()) && !off()
      ? a.decide(Approval.DENIED, by, "the target node journaled this refusal first") : change.apply(a);
  }

  /**
   * The approver's answer, once the node journaled the approved call just sent to it: the approval, with {@code
   * delivery} saying whether the node confirmed it; 409 when the node refused the call because a deny or withdrawal
   * (the other half of a split) reached its journal first — then the approval becomes that decision on every hub.
   */
  Future<JsonObject> delivered(Approval decided) {
    ToolCall call = decided.call();
    if (off() || call.nodeId() == null) {
      return Future.succeededFuture(decided.toJson());
    }
    Target t = new Target(call.nodeId(), call.callId());
    return routing.callJournaled(t.nodeId(), t.callId(), JOURNALED_WAIT_MS).transform(ar -> {
      String state = ar.succeeded() ? ar.result().getString("state") : null;
      if ("refused".equals(state)) {
        JsonObject r = ar.result().getJsonObject("refusal", new JsonObject());
        return approvals.transition(decided.approvalId(), a -> a.decide(Approval.DENIED, r.getString("by"),
            r.getString("decision") + " on hub " + r.getString("hub") + " first (node " + t.nodeId() + "'s journal)"))
          .onSuccess(denied -> vertx.eventBus().publish(Addresses.EVENTS, ApprovalEvents.decided(denied)))
          .transform(x -> Future.failedFuture(taken(decided, t, ar.result())));
      }
      boolean journaledThere = "running".equals(state) || "done".equals(state) || "interrupted".equals(state);
      return Future.succeededFuture(decided.toJson().put("delivery", journaledThere
        ? "journaled on node " + t.nodeId() : "not confirmed by node " + t.nodeId() + " yet (" + (ar.failed()
        ? ar.cause().getMessage() : state) + "); GET /api/v1/calls/" + t.callId() + " follows it"));
    });
  }

  static boolean off() {
    return FaultSwitch.HUB_DECIDES_ALONE.on();
  }

  /** The nodes the call would run on: its node, or the nodes its plan pinned (a fan-out's children by their ids). */
  static List<Target> targets(ToolCall call) {
    if (call.nodeId() != null) {
      return List.of(new Target(call.nodeId(), call.callId()));
    }
    JsonObject sel = call.selector() == null ? new JsonObject() : call.selector();
    boolean all = "all".equals(sel.getString("mode"));
    List<Target> out = new ArrayList<>();
    sel.getJsonArray("nodes", new io.vertx.core.json.JsonArray()).forEach(n -> out.add(new Target(String.valueOf(n),
      all ? call.callId() + ":" + n : call.callId())));
    return out;
  }

  /**
   * Every target node journals that the call never runs ({@code decision}: denied or cancelled, by {@code by}). Fails
   * with 409 when a node's journal held the call already (delivered first: approved elsewhere; or refused first by
   * another decision), 503 when a node cannot be reached from here.
   */
  Future<Void> refuse(Approval a, String decision, String by) {
    if (off()) {
      return Future.succeededFuture();
    }
    JsonObject word = new JsonObject().put("decision", decision).put("by", by == null ? "nobody (expiry)" : by)
      .put("hub", hubId)
      .put("at", System.currentTimeMillis()).put("approvalId", a.approvalId());
    Future<Void> all = Future.succeededFuture();
    for (Target t : targets(a.call())) {
      all = all.compose(v -> routing.refuseCall(t.nodeId(), t.callId(), word).compose(answer ->
        answer.getBoolean("refused", false) ? Future.<Void>succeededFuture()
          : Future.<Void>failedFuture(taken(a, t, answer.getJsonObject("journal", new JsonObject())))));
    }
    return all;
  }

  /** 409: the node's journal held the call first; names what it holds. */
  static FleetException taken(Approval a, Target t, JsonObject journal) {
    JsonObject r = journal.getJsonObject("refusal");
    String held = r != null ? "already " + r.getString("decision") + " by " + r.getString("by") + " on hub "
      + r.getString("hub") + " at " + Instant.ofEpochMilli(r.getLong("at", 0L))
      : "already approved elsewhere: node " + t.nodeId() + " received call " + t.callId() + " first (" + journal
      .getString("state") + "); it runs once";
    return FailureCode.CONFLICT.exception("approval " + a.approvalId() + " was " + held + " (the decision node "
      + t.nodeId() + " journaled first stands)");
  }

  /** An approval is decided here only while this hub can reach every target node (503 and nothing stored if not). */
  Future<Void> reachable(Approval a) {
    if (off()) {
      return Future.succeededFuture();
    }
    Future<Void> all = Future.succeededFuture();
    for (Target t : targets(a.call())) {
      all = all.compose(v -> routing.reachable(t.nodeId()));
    }
    return all;
  }
}
