package io.fleetbus.bench.sim;

import io.fleetbus.node.api.NodeCredentials;
import io.fleetbus.node.trust.InstanceKeys;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.NodeHello;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * One simulated node: the hello it says, its trust (enrollment, proofs, directive checks: the node's own
 * {@link NodeCredentials}) and the heartbeats it sends. Touched only on the simulator's context.
 */
final class SimulatedNode {
  static final String AGENT_VERSION = "0.1.0-sim";
  private static final List<String> TOOLS = List.of("get_agent_health", "get_system_info");

  final String nodeId;
  final int index;
  /** A call key, as a real node process has (its calls are HMAC-signed after the first). */
  final String instanceId = InstanceKeys.newInstanceId();
  private long seq;
  NodeCredentials trust;
  boolean silenceAfterNextBeat;
  boolean silenced;
  /** Set for an edge node: its own TLS link to the hub's edge endpoint, which carries its hello and heartbeats. */
  io.fleetbus.shared.edge.EdgePeer link;
  /** The cluster member of the hub holding that link (its welcome names it). */
  String linkMember;

  SimulatedNode(String nodeId, int index) {
    this.nodeId = nodeId;
    this.index = index;
  }

  NodeHello hello(String memberId) {
    JsonObject labels = new JsonObject().put("site", "sim").put("rack", "r" + (index % 40)).put("os", "linux");
    return new NodeHello(nodeId, instanceId, memberId, "linux", "sudo", labels, AGENT_VERSION, TOOLS, null);
  }

  Heartbeat nextHeartbeat() {
    return trust.prove(new Heartbeat(nodeId, instanceId, ++seq, System.currentTimeMillis(), FakeSystemInfo.metrics(), null));
  }
}
