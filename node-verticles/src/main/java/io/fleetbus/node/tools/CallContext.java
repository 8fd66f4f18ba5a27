package io.fleetbus.node.tools;

import io.fleetbus.node.AgentStatus;
import io.fleetbus.node.NodeSettings;

/** What a tool may know about the call and the agent running it. */
public record CallContext(String callId, String principal, NodeSettings settings, AgentStatus status) {
}
