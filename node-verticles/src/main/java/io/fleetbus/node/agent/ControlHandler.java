package io.fleetbus.node.agent;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.RuntimeConfig;
import io.fleetbus.node.tools.CallControl;
import io.fleetbus.node.tools.ToolDispatcher;
import io.fleetbus.node.trust.NodeTrust;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.bus.FleetReplies;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hub → node instructions on the node's control address, each signed by the hub: cancel a running call,
 * config_update, call_status (how a call ended, optionally waiting for it), rekey (a new credential), dry_run (would
 * this node run a call: its checks, nothing run), refuse_call (a hub's deny or withdrawal, journaled: issue 34).
 */
public final class ControlHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ControlHandler.class);
  private static final long MAX_STATUS_WAIT_MS = 600_000;

  private final Vertx vertx;
  private final NodeSettings settings;
  private final RuntimeConfig runtime;
  private final NodeTrust trust;
  private final AgentState state;
  private final CallsInFlight calls;
  /** Told the new heartbeat interval when a config_update changes it while registered. */
  private final LongConsumer heartbeatInterval;
  /** Runs a dry check's call through this node's checks; null: this handler answers no dry checks. */
  private final ToolDispatcher dispatcher;

  public ControlHandler(Vertx vertx, NodeSettings settings, RuntimeConfig runtime, NodeTrust trust, AgentState state,
                        CallsInFlight calls, LongConsumer heartbeatInterval) {
    this(vertx, settings, runtime, trust, state, calls, heartbeatInterval, null);
  }

  public ControlHandler(Vertx vertx, NodeSettings settings, RuntimeConfig runtime, NodeTrust trust, AgentState state,
                        CallsInFlight calls, LongConsumer heartbeatInterval, ToolDispatcher dispatcher) {
    this.dispatcher = dispatcher;
    this.vertx = vertx;
    this.settings = settings;
    this.runtime = runtime;
    this.trust = trust;
    this.state = state;
    this.calls = calls;
    this.heartbeatInterval = heartbeatInterval;
  }

  /** Serves the node's control address; completes when the consumer is registered. */
  public Future<Void> register() {
    return vertx.eventBus().<Control>consumer(Addresses.nodeControl(settings.nodeId()), this::onControl).completion();
  }

  void onControl(Message<Control> msg) {
    Control c = msg.body();
    vertx.executeBlocking(() -> verify(c), false).onComplete(checked -> {
      if (checked.failed()) {
        LOG.warn("control refused [node: {}, type: {}, reason: {}]", settings.nodeId(), c.type(), checked.cause().getMessage());
        FleetReplies.fail(msg, checked.cause());
      } else {
        act(msg, c);
      }
    });
  }

  private void act(Message<Control> msg, Control c) {
    Control.Kind kind;
    try {
      kind = c.kind();
    } catch (FleetException unknown) {
      FleetReplies.fail(msg, unknown);
      return;
    }
    switch (kind) {
      case CANCEL -> cancel(msg, c);
      case CONFIG_UPDATE -> updateConfig(msg, c.body());
      case CALL_STATUS -> callStatus(msg, c.body().getString("callId"),
        Math.min(c.body().getLong("waitMs", 0L), MAX_STATUS_WAIT_MS),
        Math.min(c.body().getLong("journaledMs", 0L), MAX_STATUS_WAIT_MS));
      case DRY_RUN -> {
        if (dispatcher == null) {
          msg.fail(FailureCode.BAD_REQUEST.code, "node " + settings.nodeId() + " does not handle control 'dry_run'");
        } else {
          dryRun(msg, c.body().getJsonObject("call"));
        }
      }
      case REFUSE_CALL -> refuseCall(msg, c.body().getString("callId"), c.body().getJsonObject("decision"));
      case REKEY -> vertx.executeBlocking(() -> trust.rekey(c), false)
        .onSuccess(msg::reply)
        .onFailure(err -> FleetReplies.fail(msg, err));
      default -> throw new IllegalStateException(kind.name());
    }
  }

  private Control verify(Control c) {
    if (trust.verifier() == null) {
      throw FailureCode.UNAUTHORIZED.exception("node " + settings.nodeId() + " is not enrolled and takes no instructions");
    }
    trust.verifier().verifyControl(c, System.currentTimeMillis());
    return c;
  }

  /** Applies and persists a hub's config_update, then confirms with the node's effective settings. */
  private void updateConfig(Message<Control> msg, JsonObject update) {
    vertx.executeBlocking(() -> runtime.apply(update), true).onComplete(ar -> {
      if (ar.failed()) {
        FleetReplies.fail(msg, ar.cause());
        return;
      }
      LOG.info("config updated [node: {}, keys: {}]", settings.nodeId(), update.fieldNames());
      if (update.containsKey("heartbeatIntervalMs") && state.get().registered()) {
        long interval = runtime.heartbeatIntervalMs(state.get().heartbeatIntervalMs());
        state.update(s -> s.withHeartbeatInterval(interval));
        heartbeatInterval.accept(interval);
      }
      msg.reply(new JsonObject().put("nodeId", settings.nodeId()).put("applied", ar.result())
        .put("effective", new JsonObject().put("heartbeatIntervalMs", state.get().heartbeatIntervalMs())
          .put("labels", runtime.labels())
          .put("allowlist", new JsonArray(runtime.allowlist().stream().sorted().toList()))));
    });
  }

  /**
   * How a call ended, from this node's point of view: a hub asks when its caller could not hear the answer.
   * With {@code waitMs}, a call still running is answered when it ends (or when the wait is over); with {@code
   * journaledMs}, a call received and not yet admitted is answered once its journal holds it (an approver hears
   * "approved" only then: issue 34).
   */
  private void callStatus(Message<Control> msg, String callId, long waitMs, long journaledMs) {
    if (callId == null) {
      msg.fail(FailureCode.BAD_REQUEST.code, "call_status needs callId");
      return;
    }
    if (journaledMs > 0) {
      awaitJournaled(msg, callId, journaledMs);
      return;
    }
    if (waitMs > 0 && calls.unfinished(callId)) {
      boolean[] answered = new boolean[1];
      Runnable answer = () -> {
        if (!answered[0]) {
          answered[0] = true;
          callStatus(msg, callId, 0, 0);
        }
      };
      long timer = vertx.setTimer(waitMs, t -> answer.run());
      calls.whenEnded(callId, () -> {
        vertx.cancelTimer(timer);
        answer.run();
      });
      return;
    }
    boolean runningHere = calls.unfinished(callId);
    vertx.executeBlocking(() -> trust.admission().status(callId), false).onComplete(ar -> {
      JsonObject known = ar.succeeded() ? ar.result() : null;
      if (known == null) {
        known = new JsonObject().put("callId", callId).put("state", runningHere ? "running" : "not_received");
      }
      if (known.getJsonObject("result") != null) {
        // the result travels back with this node's proof, like the call's own answer would have
        known.put("result", trust.prove(ToolResult.fromJson(known.getJsonObject("result"))).toJson());
      }
      // a refusal is the journal's word on a decision: proved as a refuse_call's answer is
      msg.reply(known.getJsonObject("refusal") != null ? trust.proveDecision(known) : known);
    });
  }

  /**
   * Answers once the journal holds the call (or it ended, or {@code waitMs} passed), also when the ask overtook the call
   * on its way: an approved call is asked about as it is delivered.
   */
  private void awaitJournaled(Message<Control> msg, String callId, long waitMs) {
    vertx.executeBlocking(() -> trust.admission().status(callId), false).onComplete(known -> {
      boolean[] answered = new boolean[1];
      Runnable answer = () -> {
        if (!answered[0]) {
          answered[0] = true;
          callStatus(msg, callId, 0, 0);
        }
      };
      if (known.succeeded() && known.result() != null) {
        answer.run();
        return;
      }
      long timer = vertx.setTimer(waitMs, t -> {
        calls.forgetWaiters(callId);
        answer.run();
      });
      if (!calls.whenJournaled(callId, () -> {
        vertx.cancelTimer(timer);
        answer.run();
      })) {
        vertx.cancelTimer(timer);
        answer.run();
      }
    });
  }

  /**
   * A hub's deny or withdrawal, arbitrated by the journal (flushed before the answer): the first decision to reach this
   * node wins. The answer carries this node's proof, so no other member can confirm (or refuse) a decision in its name.
   */
  private void refuseCall(Message<Control> msg, String callId, JsonObject decision) {
    vertx.executeBlocking(() -> trust.admission().refuse(callId, decision), false).onComplete(ar -> {
      if (ar.failed()) {
        LOG.warn("refusal not journaled [call: {}, reason: {}]", callId, ar.cause().getMessage());
        FleetReplies.fail(msg, FailureCode.NO_ELIGIBLE_NODE.exception("node " + settings.nodeId()
          + " could not journal the decision on call " + callId + ": " + ar.cause().getMessage()));
        return;
      }
      JsonObject answer = new JsonObject().put("callId", callId).put("nodeId", settings.nodeId())
        .put("refused", ar.result() == null);
      if (ar.result() != null) {
        answer.put("journal", new JsonObject().put("state", ar.result().getString("state"))
          .put("refusal", ar.result().getJsonObject("refusal")));
      }
      LOG.info("decision arbitrated [call: {}, decision: {}, by: {}, journaled: {}]", callId,
        decision.getString("decision"), decision.getString("by"), ar.result() == null ? "now" : "earlier: "
          + ar.result().getString("state"));
      msg.reply(trust.proveDecision(answer));
    });
  }

  /**
   * Would this node run the call? Its arguments open with this node's credential (the hub sealed them like a call's),
   * then the dispatcher's and the tool's checks run, nothing else. The answer carries this node's proof, refusal or
   * not, so no other member can refuse (or wave through) a call in its name.
   */
  private void dryRun(Message<Control> msg, JsonObject body) {
    ToolCall call;
    try {
      call = trust.openCall(ToolCall.fromJson(body));
      if (!settings.nodeId().equals(call.nodeId())) {
        throw FailureCode.BAD_REQUEST.exception("dry_run for node '" + call.nodeId() + "' sent to node " + settings.nodeId());
      }
    } catch (RuntimeException e) {
      FleetReplies.fail(msg, e);
      return;
    }
    dispatcher.check(call).onComplete(ar -> {
      JsonObject answer = new JsonObject().put("callId", call.callId()).put("nodeId", settings.nodeId())
        .put("tool", call.tool()).put("accepted", ar.succeeded());
      if (ar.failed()) {
        FailureCode code = FailureCode.of(ar.cause());
        answer.put("code", code.code).put("message", ar.cause().getMessage());
      }
      LOG.info("dry check [call: {}, tool: {}, answer: {}]", call.callId(), call.tool(),
        ar.succeeded() ? "would run" : "refused " + answer.getInteger("code"));
      msg.reply(trust.proveDryRun(answer));
    });
  }

  private void cancel(Message<Control> msg, Control c) {
    String callId = c.body().getString("callId");
    CallControl control = callId == null ? null : calls.control(callId);
    if (control == null) {
      msg.fail(FailureCode.NOT_FOUND.code, "call " + callId + " is not running on node " + settings.nodeId());
      return;
    }
    String by = c.body().getString("by", "the hub");
    vertx.executeBlocking(() -> control.cancel(by), false).onComplete(ar -> {
      LOG.info("call cancelled [call: {}, by: {}]", callId, by);
      msg.reply(new JsonObject().put("callId", callId).put("cancelled", ar.succeeded() && ar.result()));
    });
  }
}
