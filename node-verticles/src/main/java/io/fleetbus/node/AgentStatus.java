package io.fleetbus.node;

import io.vertx.core.json.JsonObject;

/** An immutable snapshot of the agent's connection state, handed to tools such as get_agent_health. */
public record AgentStatus(boolean registered, long epoch, long startedAt, long lastHelloAt,
                          long lastHeartbeatAt, long heartbeatSeq, long heartbeatIntervalMs, int hubMembers) {

  public static AgentStatus initial(long now, long intervalMs) {
    return new AgentStatus(false, 0, now, 0, 0, 0, intervalMs, 0);
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
