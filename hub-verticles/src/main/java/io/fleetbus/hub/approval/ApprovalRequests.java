package io.fleetbus.hub.approval;

import io.fleetbus.hub.calls.CallLedger;
import io.fleetbus.hub.calls.CallRecord;
import io.fleetbus.hub.consent.Approval;
import io.fleetbus.hub.routing.RoutePlan;
import io.fleetbus.hub.routing.RoutingService;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a tier-3 call into a pending approval: planned by routing first (nobody is asked to approve a call that can
 * never run, and a selector is resolved there, once, so a person approves named machines), summarised for the person,
 * stored on disk and shared with the fleet's hubs before anyone hears of it, then announced and set to expire.
 * Confined to the approval verticle's event loop.
 */
final class ApprovalRequests {
  private static final Logger LOG = LoggerFactory.getLogger(ApprovalRequests.class);

  private final Vertx vertx;
  private final long ttlMs;
  private final ApprovalSummaries summaries;
  private final ApprovalBook book;
  private final CallLedger calls;
  private final RoutingService routing;
  /** Who confirms a call: by its tool and its node's labels ({@link ConfirmPolicy}). */
  private final Function<ToolCall, Future<String>> confirmFor;
  private final Consumer<Approval> expireOnTime;

  ApprovalRequests(Vertx vertx, long ttlMs, ApprovalSummaries summaries, ApprovalBook book, CallLedger calls,
                   RoutingService routing, Function<ToolCall, Future<String>> confirmFor, Consumer<Approval> expireOnTime) {
    this.vertx = vertx;
    this.ttlMs = ttlMs;
    this.summaries = summaries;
    this.book = book;
    this.calls = calls;
    this.routing = routing;
    this.confirmFor = confirmFor;
    this.expireOnTime = expireOnTime;
  }

  /** The call parked: planned, stored, announced; fails (audited when refused) when it can never run or not be stored. */
  Future<Approval> park(ToolCall call, ToolSpec spec) {
    return plan(call, spec).compose(planned -> store(planned, spec));
  }

  /**
   * Routing's plan: a refusal is audited and answered at once; the call pinned to its nodes parks. A named node that
   * cannot be asked now (unknown, offline, no answer) does not stop the call from parking: it is checked when it runs.
   */
  private Future<ToolCall> plan(ToolCall call, ToolSpec spec) {
    if (spec.runsOnHub()) {
      return Future.succeededFuture(call);
    }
    return routing.plan(call).transform(ar -> {
      if (ar.failed()) {
        if (call.nodeId() == null) {
          return Future.failedFuture(ar.cause());
        }
        LOG.warn("call not checked before parking [call: {}, node: {}, reason: {}]", call.callId(), call.nodeId(),
          ar.cause().getMessage());
        return Future.succeededFuture(call);
      }
      RoutePlan.Refusal refusal = ar.result().refusal();
      if (refusal == null) {
        return Future.succeededFuture(ar.result().call());
      }
      LOG.info("call refused before parking [call: {}, tool: {}, code: {}, by: {}]", call.callId(), call.tool(),
        refusal.code().code, refusal.by());
      return calls.refused(call, spec.tier(), refusal.code(), refusal.message(), refusal.by())
        .compose(audited -> Future.failedFuture(refusal.code().exception(refusal.message())));
    });
  }

  private Future<Approval> store(ToolCall call, ToolSpec spec) {
    long now = System.currentTimeMillis();
    String approvalId = UUID.randomUUID().toString();
    // the call id is taken at once: the same call cannot be parked twice while its summary is prepared
    CallRecord pending = calls.parking(call, approvalId, now);
    return Future.all(summaries.summarize(call, spec), confirmFor.apply(call))
      .map(both -> new Approval(approvalId, call, both.resultAt(0), now, now + ttlMs, Approval.PENDING, null, null,
        0, both.resultAt(1)))
      // stored and shared before anyone hears of it
      .compose(book::open)
      .onSuccess(a -> {
        calls.parked(pending);
        announce(a);
      })
      .recover(err -> {
        calls.forget(call.callId());
        LOG.error("approval not stored [call: {}, reason: {}]", call.callId(), err.getMessage());
        return Future.failedFuture(FailureCode.TOOL_FAILED.exception("the approval could not be stored, so the call"
          + " will not run: " + err.getMessage()));
      });
  }

  /** A stored pending approval: listed, announced, and expired on time. */
  private void announce(Approval a) {
    ToolCall call = a.call();
    expireOnTime.accept(a);
    LOG.info("approval requested [approval: {}, call: {}, node: {}, tool: {}, requester: {}]", a.approvalId(),
      call.callId(), call.nodeId(), call.tool(), call.principal());
    vertx.eventBus().publish(Addresses.EVENTS, ApprovalEvents.requested(a));
  }
}
