package io.fleetbus.node.tools;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.state.AgentStatus;

/** What a tool may know about the call and the agent running it, and its channel for output and cancel. */
public record CallContext(String callId, String principal, NodeSettings settings, AgentStatus status,
                          CallControl control) {

  /** A context without streaming, for calls (and tests) that need none. */
  public CallContext(String callId, String principal, NodeSettings settings, AgentStatus status) {
    this(callId, principal, settings, status, CallControl.detached(callId));
  }
}
