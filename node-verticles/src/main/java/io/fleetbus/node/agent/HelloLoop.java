package io.fleetbus.node.agent;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.RuntimeConfig;
import io.fleetbus.node.trust.NodeTrust;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.NodeRegistered;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says hello to a hub until one accepts (backoff 1, 2, 4 … up to {@link NodeSettings#maxHelloBackoffMs()}),
 * and again whenever a new hub can be greeted ({@link HubView#onNewHub}: a hub joined the cluster, or the edge
 * link reached another hub). Tells {@code onRegistered} the heartbeat interval agreed.
 */
public final class HelloLoop {
  private static final Logger LOG = LoggerFactory.getLogger(HelloLoop.class);
  public static final String AGENT_VERSION = "0.1.0";
  /** A hub answers a hello in milliseconds; a longer silence means it is not ready yet, so try again soon. */
  private static final long HELLO_TIMEOUT_MS = 2500;
  private static final long ENROLL_TIMEOUT_MS = 15_000;
  private static final long FIRST_BACKOFF_MS = 1000;

  private final Vertx vertx;
  private final Context context;
  private final NodeSettings settings;
  private final RuntimeConfig runtime;
  private final List<String> toolNames;
  private final HubView hubs;
  private final NodeTrust trust;
  private final AgentState state;
  private final LongConsumer onRegistered;
  private final JsonObject confinement;

  private long backoffMs = FIRST_BACKOFF_MS;
  /** What the hub says when another running agent holds this node id (RegistryVerticle). */
  private static final String DUPLICATE_ID = "is already connected from another";
  private int duplicateRefusals;
  private long timer = -1;
  private long generation;
  private Runnable stopWatching = () -> { };
  private volatile boolean stopping;
  /** An enrollment hello is unanswered: a second one could spend the token twice (two credentials, one kept). */
  private boolean enrolling;
  /** A hub joined while enrolling: greet it once the enrollment is answered. */
  private boolean greetAfterEnroll;

  /** {@code hubs}: {@link HubView#NONE} where there is no cluster or link to watch (tests, a plain event bus). */
  public HelloLoop(Vertx vertx, Context context, NodeSettings settings, RuntimeConfig runtime, List<String> toolNames,
                   HubView hubs, NodeTrust trust, AgentState state, JsonObject confinement,
                   LongConsumer onRegistered) {
    this.vertx = vertx;
    this.confinement = confinement;
    this.context = context;
    this.settings = settings;
    this.runtime = runtime;
    this.toolNames = toolNames;
    this.hubs = hubs;
    this.trust = trust;
    this.state = state;
    this.onRegistered = onRegistered;
  }

  public void start() {
    stopWatching = hubs.onNewHub(() -> context.runOnContext(v -> onHubJoined()));
    sayHello();
  }

  public void stop() {
    stopping = true;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    stopWatching.run();
  }

  private void sayHello() {
    if (stopping) {
      return;
    }
    long sent = ++generation;
    NodeHello hello = new NodeHello(settings.nodeId(), settings.instanceId(),
      hubs.memberId(), NodeSettings.platform(),
      settings.capabilityTier(), runtime.labels(), AGENT_VERSION, toolNames, busClaim(), confinement);
    NodeTrust.Hello signed = trust.hello(hello);
    state.update(s -> s.withHello(System.currentTimeMillis(), hubs.hubCount()));
    // enrolling takes the hub a few writes (and a first TLS handshake back): give it time rather than spend the token twice
    enrolling = NodeTrust.ENROLL.equals(signed.method());
    long timeout = enrolling ? ENROLL_TIMEOUT_MS : HELLO_TIMEOUT_MS;
    vertx.eventBus().<NodeRegistered>request(Addresses.HUB_REGISTER, signed.hello(), new DeliveryOptions().setSendTimeout(timeout))
      .compose(reply -> vertx.executeBlocking(() -> {
        trust.accept(signed, reply.body());
        return reply.body();
      }, false))
      .onComplete(ar -> {
        if (sent != generation || stopping) {
          return; // a newer hello is under way
        }
        boolean greet = greetAfterEnroll;
        enrolling = false;
        greetAfterEnroll = false;
        if (ar.succeeded()) {
          registered(ar.result());
          if (greet) {
            sayHello(); // by the new credential now: the hub that joined meanwhile hears this node
          }
        } else {
          retry(ar.cause(), signed);
        }
      });
  }

  /** The node's event-bus address, proved with the rest of the hello (the hubs reach it there: issue 32). */
  private JsonObject busClaim() {
    String bus = hubs.busAddress();
    return bus == null ? null : new JsonObject().put("bus", bus);
  }

  private void registered(NodeRegistered reg) {
    backoffMs = FIRST_BACKOFF_MS;
    duplicateRefusals = 0;
    long interval = runtime.heartbeatIntervalMs(reg.heartbeatIntervalMs() > 0 ? reg.heartbeatIntervalMs()
      : settings.heartbeatIntervalMs());
    state.update(s -> s.withRegistration(reg.epoch(), interval));
    LOG.info("registered with hub [node: {}, epoch: {}, heartbeatMs: {}]", settings.nodeId(), reg.epoch(), interval);
    onRegistered.accept(interval);
  }

  private void retry(Throwable cause, NodeTrust.Hello sent) {
    boolean refused = cause instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE;
    if (refused && ((ReplyException) cause).failureCode() == FailureCode.CONFLICT.code
      && String.valueOf(cause.getMessage()).contains(DUPLICATE_ID)) {
      duplicateRefusals++;
      if (settings.duplicateIdRefusals() > 0 && duplicateRefusals >= settings.duplicateIdRefusals()) {
        LOG.error("node id '{}' is held by another running node agent (hello refused {} times: {}); stop that one, or give"
            + " this one its own nodeId (conf nodeId or FLEETBUS_NODE_ID). Exiting with code {}", settings.nodeId(),
          duplicateRefusals, cause.getMessage(), NodeSettings.EXIT_DUPLICATE_ID);
        stopping = true;
        // off the event loop: the shutdown hooks stop this agent's processes and leave the cluster
        new Thread(() -> System.exit(NodeSettings.EXIT_DUPLICATE_ID), "fleetbus-node-exit").start();
        return;
      }
    }
    String why = refused || cause instanceof FleetException
      ? cause.getMessage() + trust.refused(sent, FailureCode.of(cause).code)
      : "no hub answered (" + cause.getMessage() + ")";
    LOG.warn("hello not accepted, retrying in {} ms [node: {}, reason: {}]", backoffMs, settings.nodeId(), why);
    state.update(s -> s.withoutRegistration());
    timer = vertx.setTimer(backoffMs, t -> sayHello());
    backoffMs = Math.min(backoffMs * 2, settings.maxHelloBackoffMs());
  }

  /**
   * A hub (data member) joined while this node was already in the cluster (another hub is alive), or the edge link
   * reached another hub: say hello so the new hub knows this node at once. (When the last hub dies the supervisor rejoins
   * the whole member instead: see {@link io.fleetbus.node.boot.NodeSupervisor}.)
   */
  private void onHubJoined() {
    if (stopping) {
      return;
    }
    if (enrolling) {
      greetAfterEnroll = true;
      LOG.info("a new hub is reachable: saying hello again once the enrollment is answered [node: {}]", settings.nodeId());
      return;
    }
    LOG.info("a new hub is reachable: saying hello again [node: {}]", settings.nodeId());
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    backoffMs = FIRST_BACKOFF_MS;
    sayHello();
  }
}
