package io.fleetbus.node.agent;

import io.fleetbus.node.NodeSettings;
import io.fleetbus.node.tools.system.SystemProbe;
import io.fleetbus.node.trust.NodeTrust;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.msg.Heartbeat;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Publishes this node's signed heartbeat (metrics snapshot, sequence number) every interval once a hub accepted it. */
public final class Heartbeats {
  private static final Logger LOG = LoggerFactory.getLogger(Heartbeats.class);

  private final Vertx vertx;
  private final NodeSettings settings;
  private final SystemProbe probe;
  private final NodeTrust trust;
  private final AgentState state;
  private long timer = -1;
  private long generation;

  public Heartbeats(Vertx vertx, NodeSettings settings, SystemProbe probe, NodeTrust trust, AgentState state) {
    this.vertx = vertx;
    this.settings = settings;
    this.probe = probe;
    this.trust = trust;
    this.state = state;
  }

  /** Beats now and then every {@code intervalMs}, replacing any earlier rhythm. */
  public void start(long intervalMs) {
    stop();
    beat();
    timer = vertx.setPeriodic(intervalMs, t -> beat());
  }

  public void stop() {
    generation++; // a metrics sample still being taken is not sent
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  private void beat() {
    long gen = generation;
    vertx.executeBlocking(() -> probe.metrics(settings.dataDir()), true).onComplete(ar -> {
      if (gen != generation) {
        return; // stopped (or restarted with another rhythm) while the sample was taken
      }
      if (ar.failed()) {
        LOG.warn("metrics snapshot failed [node: {}]", settings.nodeId(), ar.cause());
        return;
      }
      long seq = state.get().heartbeatSeq() + 1;
      long now = System.currentTimeMillis();
      vertx.eventBus().publish(Addresses.HEARTBEAT,
        trust.prove(new Heartbeat(settings.nodeId(), settings.instanceId(), seq, now, ar.result(), null)));
      state.update(s -> s.withHeartbeat(now, seq));
    });
  }
}
