package io.fleetbus.hub.monitor;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * What the rest of the hub tells the heartbeat monitor, which alone decides whether a node is alive: which node process
 * to expect heartbeats from and how often, that a node said goodbye, was revoked, or that a cluster member left. Served
 * by {@link HeartbeatMonitorVerticle}; reached through {@link MonitorBus#client}. Each answer comes once the monitor has
 * taken the notice in (so a sender may ignore it: nothing else waits on it).
 */
public interface MonitorService {

  /**
   * The type of the event a hub publishes on {@code fleet.events} when a proven edge link it held closes
   * ({@code {type, nodeId, member, reason, at}}): every hub's monitor takes the node offline if it still tracks it on
   * that member. Published by the hub, so it leaves with the fleet's hub proof.
   */
  String LINK_LOST = "node.link_lost";

  /** Expect heartbeats from this node process from now on (a hello, or a registration another hub shared). */
  Future<Void> track(Tracking tracking);

  /** The node's heartbeat rhythm changed (config_update): its silence is judged by the new interval from now on. */
  Future<Void> heartbeatInterval(String nodeId, long intervalMs);

  /** The node said goodbye: offline at once when the goodbye's proof verifies; 401 (and nothing changes) when not. */
  Future<Void> goodbye(String nodeId, JsonObject goodbye);

  /** The node was revoked: no longer tracked, offline if it was online, and its heartbeats are dropped as revoked. */
  Future<Void> forget(String nodeId);

  /** A cluster member left: the nodes that proved themselves on it are offline and their calls in flight fail now. */
  Future<Void> memberLeft(String memberId);
}
