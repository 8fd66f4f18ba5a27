package io.fleetbus.node;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.CallControl;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.node.tools.ToolDispatcher;
import io.fleetbus.node.tools.system.SystemProbe;
import io.fleetbus.node.trust.CallAdmission;
import io.fleetbus.node.trust.NodeTrust;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.NodeRegistered;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's presence on the bus: says hello to a hub (backoff 1, 2, 4 … 60 s), serves its call
 * address, publishes heartbeats, and says hello again whenever a hub joins.
 */
public final class NodeAgentVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(NodeAgentVerticle.class);
  public static final String AGENT_VERSION = "0.1.0";
  /** A hub answers a hello in milliseconds; a longer silence means it is not ready yet, so try again soon. */
  private static final long HELLO_TIMEOUT_MS = 2500;
  private static final long ENROLL_TIMEOUT_MS = 15_000;

  private final NodeSettings settings;
  private final RuntimeConfig runtime;
  private final ToolDispatcher dispatcher;
  private final SystemProbe probe;
  private final HazelcastInstance hazelcast;
  private final NodeTrust trust;
  /** Told each time a hub accepts the hello (jobs re-send what finished while no hub listened). */
  private final Runnable onRegistered;

  private MessageConsumer<ToolCall> callConsumer;
  /** Calls admitted and not yet answered (outcome journaled), and hubs waiting to hear how they end. */
  private final java.util.Set<String> unfinished = new java.util.HashSet<>();
  private final java.util.Map<String, java.util.List<Runnable>> statusWaiters = new java.util.HashMap<>();
  private static final long MAX_STATUS_WAIT_MS = 600_000;
  /** Calls being run, by call id (confined to this verticle's event loop). */
  private final java.util.Map<String, CallControl> running = new java.util.HashMap<>();
  private AgentStatus status;
  private long helloBackoffMs = 1000;
  private long helloTimer = -1;
  private long heartbeatTimer = -1;
  private long helloGeneration;
  private String membershipRegistration;
  private volatile boolean stopping;

  public NodeAgentVerticle(NodeSettings settings, RuntimeConfig runtime, ToolDispatcher dispatcher, SystemProbe probe,
                           HazelcastInstance hazelcast, Runnable onRegistered, NodeTrust trust) {
    this.settings = settings;
    this.runtime = runtime;
    this.onRegistered = onRegistered;
    this.dispatcher = dispatcher;
    this.probe = probe;
    this.hazelcast = hazelcast;
    this.trust = trust;
  }

  @Override
  public Future<?> start() {
    status = AgentStatus.initial(System.currentTimeMillis(), settings.heartbeatIntervalMs());
    if (hazelcast != null) {
      membershipRegistration = hazelcast.getCluster().addMembershipListener(new HubWatcher()).toString();
    }
    return registerCallConsumer().onSuccess(v -> sayHello());
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    if (hazelcast != null && membershipRegistration != null) {
      try {
        hazelcast.getCluster().removeMembershipListener(UUID.fromString(membershipRegistration));
      } catch (RuntimeException e) {
        LOG.debug("membership listener already gone", e);
      }
    }
    // a graceful stop says goodbye so the hub marks this node offline at once
    return vertx.eventBus().request(Addresses.HUB_GOODBYE, trust.goodbye(settings.instanceId()),
        new DeliveryOptions().setSendTimeout(1000))
      .otherwiseEmpty()
      .compose(v -> callConsumer == null ? Future.succeededFuture() : callConsumer.unregister());
  }

  private Future<Void> registerCallConsumer() {
    callConsumer = vertx.eventBus().consumer(Addresses.nodeCall(settings.nodeId()), this::onCall);
    MessageConsumer<Control> control = vertx.eventBus().consumer(Addresses.nodeControl(settings.nodeId()), this::onControl);
    return Future.all(callConsumer.completion(), control.completion()).mapEmpty();
  }

  /** Hub → node instructions, each signed by the hub. Cancel stops a running call; rekey takes a new credential. */
  private void onControl(Message<Control> msg) {
    Control c = msg.body();
    vertx.executeBlocking(() -> verifyControl(c), false).onComplete(checked -> {
      if (checked.failed()) {
        LOG.warn("control refused [node: {}, type: {}, reason: {}]", settings.nodeId(), c.type(), checked.cause().getMessage());
        msg.fail(FailureCode.of(checked.cause()).code, checked.cause().getMessage());
      } else if (Control.CANCEL.equals(c.type())) {
        cancel(msg, c);
      } else if (Control.CONFIG_UPDATE.equals(c.type())) {
        updateConfig(msg, c.body());
      } else if (Control.CALL_STATUS.equals(c.type())) {
        callStatus(msg, c.body().getString("callId"), Math.min(c.body().getLong("waitMs", 0L), MAX_STATUS_WAIT_MS));
      } else if (Control.REKEY.equals(c.type())) {
        vertx.executeBlocking(() -> trust.rekey(c), false)
          .onSuccess(msg::reply)
          .onFailure(err -> msg.fail(FailureCode.of(err).code, err.getMessage()));
      } else {
        msg.fail(FailureCode.BAD_REQUEST.code, "node " + settings.nodeId() + " does not handle control '" + c.type() + "'");
      }
    });
  }

  /** Applies and persists a hub's config_update, then confirms with the node's effective settings. */
  private void updateConfig(Message<Control> msg, io.vertx.core.json.JsonObject update) {
    vertx.executeBlocking(() -> runtime.apply(update), true).onComplete(ar -> {
      if (ar.failed()) {
        FailureCode code = FailureCode.of(ar.cause());
        msg.fail(code.code, ar.cause().getMessage());
        return;
      }
      LOG.info("config updated [node: {}, keys: {}]", settings.nodeId(), update.fieldNames());
      if (update.containsKey("heartbeatIntervalMs") && status.registered()) {
        long interval = runtime.heartbeatIntervalMs(status.heartbeatIntervalMs());
        status = new AgentStatus(status.registered(), status.epoch(), status.startedAt(), status.lastHelloAt(),
          status.lastHeartbeatAt(), status.heartbeatSeq(), interval, status.hubMembers());
        startHeartbeats(interval);
      }
      msg.reply(new io.vertx.core.json.JsonObject().put("nodeId", settings.nodeId()).put("applied", ar.result())
        .put("effective", new io.vertx.core.json.JsonObject().put("heartbeatIntervalMs", status.heartbeatIntervalMs())
          .put("labels", runtime.labels())
          .put("allowlist", new io.vertx.core.json.JsonArray(runtime.allowlist().stream().sorted().toList()))));
    });
  }

  private Control verifyControl(Control c) {
    if (trust.verifier() == null) {
      throw FailureCode.UNAUTHORIZED.exception("node " + settings.nodeId() + " is not enrolled and takes no instructions");
    }
    trust.verifier().verifyControl(c, System.currentTimeMillis());
    return c;
  }

  /**
   * How a call ended, from this node's point of view: a hub asks when its caller could not hear the answer.
   * With {@code waitMs}, a call still running is answered when it ends (or when the wait is over).
   */
  private void callStatus(Message<Control> msg, String callId, long waitMs) {
    if (callId == null) {
      msg.fail(FailureCode.BAD_REQUEST.code, "call_status needs callId");
      return;
    }
    if (waitMs > 0 && unfinished.contains(callId)) {
      boolean[] answered = new boolean[1];
      Runnable answer = () -> {
        if (!answered[0]) {
          answered[0] = true;
          callStatus(msg, callId, 0);
        }
      };
      long timer = vertx.setTimer(waitMs, t -> answer.run());
      statusWaiters.computeIfAbsent(callId, k -> new java.util.ArrayList<>()).add(() -> {
        vertx.cancelTimer(timer);
        answer.run();
      });
      return;
    }
    boolean runningHere = unfinished.contains(callId);
    vertx.executeBlocking(() -> trust.admission().status(callId), false).onComplete(ar -> {
      io.vertx.core.json.JsonObject known = ar.succeeded() ? ar.result() : null;
      if (known == null) {
        known = new io.vertx.core.json.JsonObject().put("callId", callId).put("state", runningHere ? "running" : "not_received");
      }
      if (known.getJsonObject("result") != null) {
        // the result travels back with this node's proof, like the call's own answer would have
        known.put("result", trust.prove(ToolResult.fromJson(known.getJsonObject("result"))).toJson());
      }
      msg.reply(known);
    });
  }

  /** The call has ended and its outcome is journaled: hubs waiting to hear how it ended are answered. */
  private void ended(String callId) {
    unfinished.remove(callId);
    java.util.List<Runnable> waiting = statusWaiters.remove(callId);
    if (waiting != null) {
      waiting.forEach(Runnable::run);
    }
  }

  private void cancel(Message<Control> msg, Control c) {
    String callId = c.body().getString("callId");
    CallControl control = callId == null ? null : running.get(callId);
    if (control == null) {
      msg.fail(FailureCode.NOT_FOUND.code, "call " + callId + " is not running on node " + settings.nodeId());
      return;
    }
    String by = c.body().getString("by", "the hub");
    vertx.executeBlocking(() -> control.cancel(by), false).onComplete(ar -> {
      LOG.info("call cancelled [call: {}, by: {}]", callId, by);
      msg.reply(new io.vertx.core.json.JsonObject().put("callId", callId).put("cancelled", ar.succeeded() && ar.result()));
    });
  }

  /** Admission first (hub signature, once-only journal), then the tool; the answer carries this node's proof. */
  private void onCall(Message<ToolCall> msg) {
    ToolCall call = msg.body();
    // one line per call (never its arguments, which may hold secrets): the node's own record of what it was asked
    LOG.info("call received [call: {}, tool: {}, principal: {}]", call.callId(), call.tool(), call.principal());
    CallAdmission admission = trust.admission();
    unfinished.add(call.callId());
    vertx.executeBlocking(() -> admission.admit(call, settings.instanceId()), false)
      .compose(admitted -> admitted.earlier() != null
        ? Future.succeededFuture(admitted.earlier())
        : run(call).transform(ar -> journal(call, admitted, ar)))
      .onComplete(ar -> {
        ended(call.callId());
        if (ar.succeeded()) {
          msg.reply(trust.prove(ar.result()));
          return;
        }
        FailureCode code = FailureCode.of(ar.cause());
        if (code == FailureCode.UNAUTHORIZED) {
          LOG.warn("directive refused [call: {}, tool: {}, reason: {}]", call.callId(), call.tool(), ar.cause().getMessage());
        } else {
          LOG.info("call refused or failed [call: {}, tool: {}, code: {}, reason: {}]",
            call.callId(), call.tool(), code.code, ar.cause().getMessage());
        }
        msg.fail(code.code, ar.cause().getMessage());
      });
  }

  private Future<ToolResult> run(ToolCall call) {
    CallControl control = call.stream() ? CallControl.streaming(call.callId(), vertx.eventBus())
      : CallControl.detached(call.callId());
    CallContext ctx = new CallContext(call.callId(), call.principal(), settings, status, control);
    running.put(call.callId(), control);
    return dispatcher.dispatch(call, ctx).onComplete(ar -> running.remove(call.callId()));
  }

  /** A journaled call's outcome, success or failure, is written down before the caller hears it. */
  private Future<ToolResult> journal(ToolCall call, CallAdmission.Admission admitted, io.vertx.core.AsyncResult<ToolResult> ar) {
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

  private void sayHello() {
    if (stopping) {
      return;
    }
    long generation = ++helloGeneration;
    NodeHello hello = new NodeHello(settings.nodeId(), settings.instanceId(),
      hazelcast == null ? null : hazelcast.getCluster().getLocalMember().getUuid().toString(), NodeSettings.platform(),
      settings.capabilityTier(), runtime.labels(), AGENT_VERSION, dispatcher.toolNames(), null);
    NodeTrust.Hello sent = trust.hello(hello);
    status = withHello(status);
    // enrolling takes the hub a few writes (and a first TLS handshake back): give it time rather than spend the token twice
    long timeout = NodeTrust.ENROLL.equals(sent.method()) ? ENROLL_TIMEOUT_MS : HELLO_TIMEOUT_MS;
    vertx.eventBus().<NodeRegistered>request(Addresses.HUB_REGISTER, sent.hello(), new DeliveryOptions().setSendTimeout(timeout))
      .compose(reply -> vertx.executeBlocking(() -> {
        trust.accept(sent, reply.body());
        return reply.body();
      }, false))
      .onComplete(ar -> {
        if (generation != helloGeneration || stopping) {
          return; // a newer hello is under way
        }
        if (ar.succeeded()) {
          onRegistered(ar.result());
        } else {
          retryHello(ar.cause(), sent);
        }
      });
  }

  private void onRegistered(NodeRegistered reg) {
    helloBackoffMs = 1000;
    long interval = runtime.heartbeatIntervalMs(reg.heartbeatIntervalMs() > 0 ? reg.heartbeatIntervalMs()
      : settings.heartbeatIntervalMs());
    status = new AgentStatus(true, reg.epoch(), status.startedAt(), status.lastHelloAt(), status.lastHeartbeatAt(),
      status.heartbeatSeq(), interval, status.hubMembers());
    LOG.info("registered with hub [node: {}, epoch: {}, heartbeatMs: {}]", settings.nodeId(), reg.epoch(), interval);
    startHeartbeats(interval);
    onRegistered.run();
  }

  private void retryHello(Throwable cause, NodeTrust.Hello sent) {
    boolean refused = cause instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE;
    String why = refused || cause instanceof FleetException
      ? cause.getMessage() + trust.refused(sent, FailureCode.of(cause).code)
      : "no hub answered (" + cause.getMessage() + ")";
    LOG.warn("hello not accepted, retrying in {} ms [node: {}, reason: {}]", helloBackoffMs, settings.nodeId(), why);
    status = new AgentStatus(false, status.epoch(), status.startedAt(), status.lastHelloAt(), status.lastHeartbeatAt(),
      status.heartbeatSeq(), status.heartbeatIntervalMs(), status.hubMembers());
    helloTimer = vertx.setTimer(helloBackoffMs, t -> sayHello());
    helloBackoffMs = Math.min(helloBackoffMs * 2, settings.maxHelloBackoffMs());
  }

  private void startHeartbeats(long intervalMs) {
    if (heartbeatTimer >= 0) {
      vertx.cancelTimer(heartbeatTimer);
    }
    beat();
    heartbeatTimer = vertx.setPeriodic(intervalMs, t -> beat());
  }

  private void beat() {
    vertx.executeBlocking(() -> probe.metrics(settings.dataDir()), true).onComplete(ar -> {
      if (ar.failed()) {
        LOG.warn("metrics snapshot failed [node: {}]", settings.nodeId(), ar.cause());
        return;
      }
      long seq = status.heartbeatSeq() + 1;
      long now = System.currentTimeMillis();
      vertx.eventBus().publish(Addresses.HEARTBEAT,
        trust.prove(new Heartbeat(settings.nodeId(), settings.instanceId(), seq, now, ar.result(), null)));
      status = new AgentStatus(status.registered(), status.epoch(), status.startedAt(), status.lastHelloAt(), now, seq,
        status.heartbeatIntervalMs(), status.hubMembers());
    });
  }

  private AgentStatus withHello(AgentStatus s) {
    return new AgentStatus(s.registered(), s.epoch(), s.startedAt(), System.currentTimeMillis(), s.lastHeartbeatAt(),
      s.heartbeatSeq(), s.heartbeatIntervalMs(), hubCount());
  }

  private int hubCount() {
    return hazelcast == null ? 0 : (int) hazelcast.getCluster().getMembers().stream().filter(m -> !m.isLiteMember()).count();
  }

  /**
   * A hub (data member) joined while this node was already in the cluster (another hub is alive):
   * say hello so the new hub knows this node at once. (When the last hub dies the supervisor rejoins
   * the whole member instead: see {@link NodeSupervisor}.)
   */
  private void onHubJoined() {
    if (stopping) {
      return;
    }
    LOG.info("a hub joined the cluster: saying hello again [node: {}]", settings.nodeId());
    if (helloTimer >= 0) {
      vertx.cancelTimer(helloTimer);
    }
    helloBackoffMs = 1000;
    sayHello();
  }

  private final class HubWatcher implements MembershipListener {
    @Override
    public void memberAdded(MembershipEvent event) {
      if (!event.getMember().isLiteMember()) {
        context.runOnContext(v -> onHubJoined());
      }
    }

    @Override
    public void memberRemoved(MembershipEvent event) {
      // liveness is judged by heartbeats and reply timeouts, not by membership
    }
  }
}
