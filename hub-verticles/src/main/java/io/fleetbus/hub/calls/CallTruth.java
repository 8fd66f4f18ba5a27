package io.fleetbus.hub.calls;

import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.hub.routing.RoutingBus;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Instant;

/**
 * Asks a node how a call ended when its caller could not hear it (the answer timed out, or the node or
 * its hub went away): the node's once-only journal knows whether it ran, still runs, finished (with its
 * result) or was interrupted by a restart. Never re-sends the call.
 */
public final class CallTruth {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CallTruth.class);
  private final Vertx vertx;

  public CallTruth(Vertx vertx) {
    this.vertx = vertx;
  }

  /** The record with the node's answer; unchanged when the node cannot say (offline, or it kept no record). */
  public Future<CallRecord> ask(CallRecord rec) {
    return ask(rec, 0);
  }

  /** As {@link #ask(CallRecord)}; a call still running on its node is answered when it ends, within {@code waitMs}. */
  public Future<CallRecord> ask(CallRecord rec, long waitMs) {
    // a node that is offline cannot answer: the record stays as it is until the node is back
    return RegistryBus.client(vertx).lookup(rec.nodeId())
      .compose(node -> node.online()
        ? RoutingBus.client(vertx).callStatus(rec.nodeId(), rec.callId(), waitMs).map(answer -> apply(rec, answer))
        : Future.succeededFuture(rec))
      .otherwise(rec)
      .onSuccess(told -> {
        if (told.resolution() != null) {
          LOG.info("call outcome learned from its node [call: {}, node: {}, status: {}, how: {}]", told.callId(),
            told.nodeId(), told.status(), told.resolution());
        }
      });
  }

  /** The decision's code (403 denied, 408 expired, 409 withdrawn), as its deciding hub records it. */
  private static FailureCode refusalCode(JsonObject answer) {
    JsonObject r = answer.getJsonObject("refusal");
    String decision = r == null ? null : r.getString("decision");
    return "denied".equals(decision) ? FailureCode.FORBIDDEN : "expired".equals(decision) ? FailureCode.APPROVAL_EXPIRED
      : FailureCode.CONFLICT;
  }

  private static String refusal(JsonObject r) {
    return r == null ? "refused" : r.getString("decision") + " by " + r.getString("by") + " on hub " + r.getString("hub")
      + " at " + Instant.ofEpochMilli(r.getLong("at", 0L));
  }

  public static CallRecord apply(CallRecord rec, JsonObject answer) {
    String asked = " (node " + rec.nodeId() + " asked at " + Instant.now() + ")";
    return switch (answer.getString("state", "unknown")) {
      case "done" -> answer.getJsonObject("result") == null ? rec
        : rec.resolved(ToolResult.fromJson(answer.getJsonObject("result")), "finished on the node" + asked);
      case "interrupted" -> rec.resolved(ToolResult.error(rec.callId(), rec.nodeId(), FailureCode.TOOL_FAILED,
        "interrupted: node " + rec.nodeId() + " stopped while the call ran; any process the call had"
          + " started was killed with the node, and the call is never run again", 0), "interrupted" + asked);
      case "refused" -> rec.resolved(ToolResult.error(rec.callId(), rec.nodeId(), refusalCode(answer), "never ran: node "
        + rec.nodeId() + "'s journal refuses it (" + refusal(answer.getJsonObject("refusal")) + ")", 0), "refused" + asked);
      case "not_received" -> rec.tier() >= 2
        ? rec.resolved(ToolResult.error(rec.callId(), rec.nodeId(), FailureCode.TOOL_FAILED,
          "never ran: node " + rec.nodeId() + " has no record of this call", 0), "never ran" + asked)
        : rec;
      default -> rec;
    };
  }
}
