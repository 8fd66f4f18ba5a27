package io.fleetbus.node.agent;

import io.fleetbus.node.state.AgentStatus;
import java.util.function.UnaryOperator;

/**
 * The agent's current {@link AgentStatus}, shared by its pieces (hello loop, heartbeats, control, calls).
 * Confined to the agent verticle's event loop: read and changed only there.
 */
public final class AgentState {
  private AgentStatus status;

  public AgentState(AgentStatus initial) {
    this.status = initial;
  }

  public AgentStatus get() {
    return status;
  }

  public AgentStatus update(UnaryOperator<AgentStatus> change) {
    status = change.apply(status);
    return status;
  }
}
