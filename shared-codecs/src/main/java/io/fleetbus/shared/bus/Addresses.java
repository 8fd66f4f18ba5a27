package io.fleetbus.shared.bus;

/** Every event-bus address fleetbus uses. Hub-internal ones are only ever consumed locally. */
public final class Addresses {
  private Addresses() {
  }

  /** Node hello → registered (crosses the cluster). */
  public static final String HUB_REGISTER = "fleet.hub.register";
  /** Node goodbye on graceful stop (crosses the cluster). */
  public static final String HUB_GOODBYE = "fleet.hub.goodbye";
  /** A call enters approval (hub-local). */
  public static final String HUB_APPROVE = "fleet.hub.approve";
  /** An approved call enters routing (hub-local). */
  public static final String HUB_ROUTE = "fleet.hub.route";
  /** Hub-local: {@code {nodeId, callId}} → how the node says the call ended (its result proof checked). */
  public static final String HUB_CALL_STATUS = "fleet.hub.call-status";
  /** Approved calls of hub-side tools (runsOn: hub), answered without a node (hub-local). */
  public static final String HUB_TOOLS = "fleet.hub.tools";
  /** Registry lookups and updates (hub-local). */
  public static final String HUB_REGISTRY = "fleet.hub.registry";
  /** Liveness changes from the heartbeat monitor to the registry (hub-local). */
  public static final String HUB_LIVENESS = "fleet.hub.liveness";
  /** Registry → heartbeat monitor: start or stop tracking a node (hub-local). */
  public static final String HUB_MONITOR = "fleet.hub.monitor";
  /** Monitor → router: a node left the cluster, fail its calls in flight (hub-local publish). */
  public static final String HUB_NODE_GONE = "fleet.hub.node.gone";
  /** Monitor → router: a node is online again, calls may go to it (hub-local publish, {@code {nodeId}}). */
  public static final String HUB_NODE_BACK = "fleet.hub.node.back";
  /** Every live hub's advertised edge endpoint, this hub's first (hub-local ask, answered with a JSON array). */
  public static final String HUB_EDGE_ENDPOINTS = "fleet.hub.edge.endpoints";
  /** Approval listing and decisions (hub-local; one address per operation below it, e.g. {@code .decide}). */
  public static final String HUB_APPROVALS = "fleet.hub.approvals";
  /** A call's record, cancel, and the calls this hub ended (hub-local; one address per operation below it). */
  public static final String HUB_CALLS = "fleet.hub.calls";
  /** Enrollment tokens, hello admission, rekey and revoke (hub-local). */
  public static final String HUB_ENROLLMENT = "fleet.hub.enrollment";
  /** Enrollment → router and monitor: a node's proof keys changed (hub-local publish; keys never leave the hub). */
  public static final String HUB_NODE_KEYS = "fleet.hub.node.keys";
  /** A control instruction for a node, signed by the hub on its way out (hub-local). */
  public static final String HUB_CONTROL = "fleet.hub.control";
  /** Audit records in (send) and audit queries (request) (hub-local). */
  public static final String HUB_AUDIT = "fleet.hub.audit";
  /** A node's config_update from the API, signed and sent on as a control (hub-local). */
  public static final String HUB_NODE_CONFIG = "fleet.hub.nodeconfig";
  /** Hub config → registry: the nodes the hub's config expects (hub-local send). */
  public static final String HUB_EXPECTED_NODES = "fleet.hub.config.expected";
  /** The one address a bridge client (TCP, SockJS) may send to: a tool call, checked by the bridge guard. */
  public static final String BRIDGE_CALL = "fleet.bridge.call";
  /** Hub-local: the cluster's members as this hub sees them (role, fleet, intruders) — GET /api/v1/cluster. */
  public static final String HUB_CLUSTER = "fleet.hub.cluster";
  /** What a TCP bridge client registers to hear heartbeats (as JSON); nothing is published here. */
  public static final String BRIDGE_HEARTBEAT_JSON = "fleet.bridge.heartbeat";
  /** Node heartbeats (publish, crosses the cluster). */
  public static final String HEARTBEAT = "fleet.heartbeat";
  /** Fleet events: node online/offline, approvals, calls finished (publish). */
  public static final String EVENTS = "fleet.events";
  /**
   * The hubs' own events for the fleet's other hubs (publish, crosses the cluster): ids, tool and type in clear, the
   * rest sealed with a key every hub of the fleet holds; each hub opens them and republishes them on {@link #EVENTS}
   * for its own listeners only (header {@link #RELAYED_HEADER}).
   */
  public static final String PEER_EVENTS = "fleet.hubs.events";
  /** On an event a hub republished locally from another hub (a local consumer that counts this hub's own skips it). */
  public static final String RELAYED_HEADER = "fb-relayed";

  public static String nodeCall(String nodeId) {
    return "fleet.node." + nodeId + ".call";
  }

  public static String nodeControl(String nodeId) {
    return "fleet.node." + nodeId + ".control";
  }

  public static String callStream(String callId) {
    return "fleet.call." + callId + ".stream";
  }

  /**
   * What a node sends to the hubs: hellos and goodbyes ({@code fleet.hub.*}), heartbeats, events and its calls' output
   * chunks. Only proven hubs receive these from a cluster node (member pinning); an edge node sends them over its link.
   */
  public static boolean isHubBound(String address) {
    return address.startsWith("fleet.hub.") || HEARTBEAT.equals(address) || EVENTS.equals(address)
      || address.startsWith("fleet.call.") && address.endsWith(".stream");
  }
}
