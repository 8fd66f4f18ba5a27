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
  /** What the last probe of the data folder found (workers write it one at a time; a stale read only repeats a log line). */
  private volatile boolean lastWritable = true;

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

  /**
   * A real write, not the folder's permission bits (issue 34: a full folder read {@code canWrite() == true}, and root
   * may write anywhere by the bits): a small file written there and removed. Fails on a full disk (the write needs a
   * block), a read-only mount and a missing folder alike; logged when it changes.
   */
  private boolean dataDirWritable() {
    java.nio.file.Path probe = settings.dataDir().resolve(".write-probe");
    boolean writable;
    String why = null;
    try {
      java.nio.file.Files.write(probe, new byte[4096]);
      writable = true;
    } catch (java.io.IOException e) {
      writable = false;
      why = e.getMessage();
    } finally {
      try {
        java.nio.file.Files.deleteIfExists(probe);
      } catch (java.io.IOException ignored) {
        // a read-only folder: nothing was written to remove
      }
    }
    if (writable != lastWritable) {
      lastWritable = writable;
      if (!writable) {
        LOG.warn("data folder not writable [node: {}, dataDir: {}, reason: {}]", settings.nodeId(), settings.dataDir(), why);
      }
    }
    return writable;
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
