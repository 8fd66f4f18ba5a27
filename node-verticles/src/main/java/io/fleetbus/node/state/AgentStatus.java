package io.fleetbus.node.state;

import io.vertx.core.json.JsonObject;

/**
 * An immutable snapshot of the agent's connection state, handed to tools such as get_agent_health.
 *
 * @param dataDirWritable whether the node's data folder was writable when last probed (with each heartbeat's metrics
 *                        sample, on a worker); null before the first probe
 * @param dataDirProbedAt when that was (epoch ms; 0: never)
 */
public record AgentStatus(boolean registered, long epoch, long startedAt, long lastHelloAt,
                          long lastHeartbeatAt, long heartbeatSeq, long heartbeatIntervalMs, int hubMembers,
                          Boolean dataDirWritable, long dataDirProbedAt) {

  public static AgentStatus initial(long now, long intervalMs) {
    return new AgentStatus(false, 0, now, 0, 0, 0, intervalMs, 0, null, 0);
  }

  /** The data folder was probed at {@code now}. */
  public AgentStatus withDataDirProbe(boolean writable, long now) {
    return new AgentStatus(registered, epoch, startedAt, lastHelloAt, lastHeartbeatAt, heartbeatSeq, heartbeatIntervalMs,
      hubMembers, writable, now);
  }

  /** A hello went out at {@code now}, with {@code hubs} hubs in the cluster. */
  public AgentStatus withHello(long now, int hubs) {
    return new AgentStatus(registered, epoch, startedAt, now, lastHeartbeatAt, heartbeatSeq, heartbeatIntervalMs,
      hubs, dataDirWritable, dataDirProbedAt);
  }

  /** A hub accepted the hello: registered in {@code newEpoch}, beating every {@code intervalMs}. */
  public AgentStatus withRegistration(long newEpoch, long intervalMs) {
    return new AgentStatus(true, newEpoch, startedAt, lastHelloAt, lastHeartbeatAt, heartbeatSeq, intervalMs,
      hubMembers, dataDirWritable, dataDirProbedAt);
  }

  /** The hello was not accepted: not registered (the last epoch is kept). */
  public AgentStatus withoutRegistration() {
    return new AgentStatus(false, epoch, startedAt, lastHelloAt, lastHeartbeatAt, heartbeatSeq, heartbeatIntervalMs,
      hubMembers, dataDirWritable, dataDirProbedAt);
  }

  /** Heartbeat {@code seq} went out at {@code now}. */
  public AgentStatus withHeartbeat(long now, long seq) {
    return new AgentStatus(registered, epoch, startedAt, lastHelloAt, now, seq, heartbeatIntervalMs,
      hubMembers, dataDirWritable, dataDirProbedAt);
  }

  public AgentStatus withHeartbeatInterval(long intervalMs) {
    return new AgentStatus(registered, epoch, startedAt, lastHelloAt, lastHeartbeatAt, heartbeatSeq, intervalMs,
      hubMembers, dataDirWritable, dataDirProbedAt);
  }

  public JsonObject toJson() {
    return new JsonObject()
      .put("registered", registered)
      .put("epoch", epoch)
      .put("startedAt", startedAt)
      .put("lastHelloAt", lastHelloAt)
      .put("lastHeartbeatAt", lastHeartbeatAt)
      .put("heartbeatSeq", heartbeatSeq)
      .put("heartbeatIntervalMs", heartbeatIntervalMs)
      .put("hubMembers", hubMembers);
  }
}
