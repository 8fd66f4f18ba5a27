package io.fleetbus.node.boot;

import io.fleetbus.node.agent.AgentState;
import io.fleetbus.node.agent.CallServer;
import io.fleetbus.node.agent.CallsInFlight;
import io.fleetbus.node.agent.ControlHandler;
import io.fleetbus.node.agent.Heartbeats;
import io.fleetbus.node.agent.HelloLoop;
import io.fleetbus.node.agent.HubView;
import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.RuntimeConfig;
import io.fleetbus.node.state.AgentStatus;
import io.fleetbus.node.tools.ToolDispatcher;
import io.fleetbus.node.tools.system.SystemProbe;
import io.fleetbus.node.trust.NodeTrust;
import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;

/**
 * The node's presence on the bus, wired from the pieces in {@code io.fleetbus.node.agent}: the call server
 * and control handler on the node's addresses, the hello loop (and again whenever a hub joins), heartbeats
 * once a hub accepted the hello. All pieces share this verticle's event loop, its {@link AgentState} and
 * its one {@link CallsInFlight}.
 */
public final class NodeAgentVerticle extends VerticleBase {
  public static final String AGENT_VERSION = HelloLoop.AGENT_VERSION;

  private final NodeSettings settings;
  private final RuntimeConfig runtime;
  private final ToolDispatcher dispatcher;
  private final SystemProbe probe;
  private final HubView hubs;
  private final NodeTrust trust;
  /** Told each time a hub accepts the hello (jobs re-send what finished while no hub listened). */
  private final Runnable onRegistered;

  private CallServer calls;
  private HelloLoop hello;
  private Heartbeats heartbeats;

  private final JsonObject confinement;

  public NodeAgentVerticle(NodeSettings settings, RuntimeConfig runtime, ToolDispatcher dispatcher, SystemProbe probe,
                           HubView hubs, Runnable onRegistered, NodeTrust trust, JsonObject confinement) {
    this.settings = settings;
    this.confinement = confinement;
    this.runtime = runtime;
    this.onRegistered = onRegistered;
    this.dispatcher = dispatcher;
    this.probe = probe;
    this.hubs = hubs;
    this.trust = trust;
  }

  @Override
  public Future<?> start() {
    AgentState state = new AgentState(AgentStatus.initial(System.currentTimeMillis(), settings.heartbeatIntervalMs()));
    CallsInFlight inFlight = new CallsInFlight();
    heartbeats = new Heartbeats(vertx, settings, probe, trust, state);
    calls = new CallServer(vertx, settings, dispatcher, trust, state, inFlight);
    ControlHandler control = new ControlHandler(vertx, settings, runtime, trust, state, inFlight, heartbeats::start,
      dispatcher);
    hello = new HelloLoop(vertx, context, settings, runtime, dispatcher.toolNames(), hubs, trust, state, confinement, interval -> {
      heartbeats.start(interval);
      onRegistered.run();
    });
    return Future.all(calls.register(), control.register(), heartbeats.probeDataDir()).onSuccess(v -> hello.start());
  }

  @Override
  public Future<?> stop() {
    hello.stop();
    heartbeats.stop();
    // a graceful stop says goodbye so the hub marks this node offline at once
    return vertx.eventBus().request(Addresses.HUB_GOODBYE, trust.goodbye(settings.instanceId()),
        new DeliveryOptions().setSendTimeout(1000))
      .otherwiseEmpty()
      .compose(v -> calls.unregister());
  }
}
