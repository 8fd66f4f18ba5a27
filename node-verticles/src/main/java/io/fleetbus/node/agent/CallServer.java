package io.fleetbus.node.agent;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.CallControl;
import io.fleetbus.node.tools.ToolDispatcher;
import io.fleetbus.node.trust.CallAdmission;
import io.fleetbus.node.trust.NodeTrust;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.CallStages;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetReplies;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the node's call address. A call enters here, passes admission (hub signature, once-only journal),
 * runs its tool, has its outcome journaled, and leaves as the reply carrying this node's proof.
 */
public final class CallServer {
  private static final Logger LOG = LoggerFactory.getLogger(CallServer.class);

  private final Vertx vertx;
  private final NodeSettings settings;
  private final ToolDispatcher dispatcher;
  private final NodeTrust trust;
  private final AgentState state;
  private final CallsInFlight calls;
  private MessageConsumer<ToolCall> consumer;

  public CallServer(Vertx vertx, NodeSettings settings, ToolDispatcher dispatcher, NodeTrust trust, AgentState state,
                    CallsInFlight calls) {
    this.vertx = vertx;
    this.settings = settings;
    this.dispatcher = dispatcher;
    this.trust = trust;
    this.state = state;
    this.calls = calls;
  }

  /** Serves the node's call address; completes when the consumer is registered. */
  public Future<Void> register() {
    consumer = vertx.eventBus().consumer(Addresses.nodeCall(settings.nodeId()), this::onCall);
    return consumer.completion();
  }

  public Future<Void> unregister() {
    return consumer == null ? Future.succeededFuture() : consumer.unregister();
  }

  void onCall(Message<ToolCall> msg) {
    ToolCall call;
    try {
      call = trust.openCall(msg.body());
    } catch (RuntimeException e) {
      LOG.warn("directive refused [call: {}, tool: {}, reason: {}]", msg.body().callId(), msg.body().tool(), e.getMessage());
      FleetReplies.fail(msg, e);
      return;
    }
    CallStages.nodeMark(call.callId(), CallStages.Stage.NODE_RECEIVED);
    // one line per call (never its arguments, which may hold secrets): the node's own record of what it was asked
    LOG.info("call received [call: {}, tool: {}, principal: {}]", call.callId(), call.tool(), call.principal());
    CallAdmission admission = trust.admission();
    calls.received(call.callId());
    admit(admission, call)
      .compose(admitted -> admitted.waitFor() == null ? Future.succeededFuture(admitted)
        : afterFirst(admission, call, admitted.waitFor()))
      .compose(admitted -> {
        CallStages.nodeMark(call.callId(), CallStages.Stage.NODE_ADMITTED);
        calls.admitted(call.callId());
        return admitted.earlier() != null
          ? Future.succeededFuture(admitted.earlier())
          : run(call).transform(ar -> {
            CallStages.nodeMark(call.callId(), CallStages.Stage.TOOL_DONE);
            return journal(call, admitted, ar);
          });
      })
      .onComplete(ar -> {
        calls.ended(call.callId());
        if (ar.succeeded()) {
          // proved over the plain result, then its data sealed for the hub (which opens, then checks)
          ToolResult proved = trust.sealResult(trust.prove(ar.result()));
          String stages = CallStages.nodeHeader(call.callId());
          if (stages == null) {
            msg.reply(proved);
          } else {
            msg.reply(proved, new DeliveryOptions().addHeader(CallStages.HEADER, stages));
          }
          return;
        }
        CallStages.nodeHeader(call.callId());
        FailureCode code = FailureCode.of(ar.cause());
        if (code == FailureCode.UNAUTHORIZED) {
          LOG.warn("directive refused [call: {}, tool: {}, reason: {}]", call.callId(), call.tool(), ar.cause().getMessage());
        } else {
          LOG.info("call refused or failed [call: {}, tool: {}, code: {}, reason: {}]",
            call.callId(), call.tool(), code.code, ar.cause().getMessage());
        }
        // failures carry the node's proof too, so a member answering in the node's place cannot fail a call
        ToolResult proved = trust.prove(ToolResult.error(call.callId(), settings.nodeId(), code, ar.cause().getMessage(), 0));
        if (proved.proof() == null) {
          FleetReplies.fail(msg, ar.cause());
        } else {
          msg.reply(proved, new DeliveryOptions().addHeader(FleetReplies.PROVEN_FAILURE, "true"));
        }
      });
  }

  /**
   * The signature is checked on the event loop (CPU only, tens of µs); only a call that must be journaled first
   * (tier 2-3: a flushed write) takes a worker thread.
   */
  private Future<CallAdmission.Admission> admit(CallAdmission admission, ToolCall call) {
    CallAdmission.Checked checked;
    try {
      checked = admission.check(call, settings.instanceId());
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    return checked.needsJournal() ? vertx.executeBlocking(() -> admission.admit(call, checked), false)
      : Future.succeededFuture(new CallAdmission.Admission(false, null));
  }

  /**
   * A keyed call whose key's first call still runs here (its retry through the other hub of a split): admitted again
   * once that call ended, which answers it with that call's outcome (its {@code data.sameAs}); never a second run.
   */
  private Future<CallAdmission.Admission> afterFirst(CallAdmission admission, ToolCall call, String first) {
    Promise<Void> ended = Promise.promise();
    boolean waiting = calls.whenEnded(first, ended::tryComplete);
    if (!waiting) {
      ended.tryComplete();
    }
    return ended.future().compose(v -> admit(admission, call)).compose(again -> again.waitFor() == null
      ? Future.succeededFuture(again) : waiting ? afterFirst(admission, call, first)
      : Future.failedFuture(FailureCode.CONFLICT.exception("call " + first + " is already running on node "
        + settings.nodeId() + "; it runs once — ask for its result later")));
  }

  private Future<ToolResult> run(ToolCall call) {
    CallControl control = call.stream() ? CallControl.streaming(call.callId(), vertx.eventBus(), trust::chunkOut)
      : CallControl.detached(call.callId());
    CallContext ctx = new CallContext(call.callId(), call.principal(), settings, state.get(), control);
    calls.running(call.callId(), control);
    return dispatcher.dispatch(call, ctx).onComplete(ar -> calls.toolDone(call.callId()));
  }

  /** A journaled call's outcome, success or failure, is written down before the caller hears it. */
  private Future<ToolResult> journal(ToolCall call, CallAdmission.Admission admitted, AsyncResult<ToolResult> ar) {
    Future<ToolResult> same = ar.succeeded() ? Future.succeededFuture(ar.result()) : Future.failedFuture(ar.cause());
    if (!admitted.journaled()) {
      return same;
    }
    ToolResult outcome = ar.succeeded() ? ar.result()
      : ToolResult.error(call.callId(), settings.nodeId(), FailureCode.of(ar.cause()), ar.cause().getMessage(), 0);
    return vertx.executeBlocking(() -> {
      trust.admission().finish(call, admitted, outcome);
      return null;
    }, false).transform(written -> {
      if (written.failed()) {
        LOG.warn("could not journal the end of a call [call: {}]", call.callId(), written.cause());
      } else {
        LOG.info("call outcome journaled [call: {}, tool: {}, status: {}]", call.callId(), call.tool(), outcome.status());
      }
      return same;
    });
  }
}
