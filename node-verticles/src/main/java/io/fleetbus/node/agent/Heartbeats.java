package io.fleetbus.node.agent;

import io.fleetbus.node.settings.NodeSettings;
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

  /**
   * Probes whether the data folder is writable (on a worker) into the agent's state, where get_agent_health reads it
   * without touching the disk; each heartbeat's sample probes it again.
   */
  public io.vertx.core.Future<Void> probeDataDir() {
    return vertx.executeBlocking(() -> dataDirWritable(), false)
      .onSuccess(writable -> state.update(s -> s.withDataDirProbe(writable, System.currentTimeMillis()))).mapEmpty();
  }

  private boolean dataDirWritable() {
    return settings.dataDir().toFile().canWrite();
  }

  private record Sample(io.fleetbus.shared.msg.Metrics metrics, boolean dataDirWritable) {
  }

  private void beat() {
    long gen = generation;
    vertx.executeBlocking(() -> new Sample(probe.metrics(settings.dataDir()), dataDirWritable()), true).onComplete(ar -> {
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
        trust.prove(new Heartbeat(settings.nodeId(), settings.instanceId(), seq, now, ar.result().metrics(), null)));
      state.update(s -> s.withHeartbeat(now, seq).withDataDirProbe(ar.result().dataDirWritable(), now));
    });
  }
}
