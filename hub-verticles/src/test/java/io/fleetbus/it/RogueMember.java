package io.fleetbus.it;

import io.fleetbus.shared.cluster.ClusterLauncher;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A cluster member that knows what anyone on the network could learn — the cluster name and a hub's
 * address — but none of the fleet's keys. It runs in the test JVM and joins the test fleet's real
 * Hazelcast cluster as a lite member, like a node would.
 */
final class RogueMember implements AutoCloseable {
  private final ClusterLauncher.Member member;

  private RogueMember(ClusterLauncher.Member member) {
    this.member = member;
  }

  static RogueMember join(TestFleet fleet, JsonObject tls) throws Exception {
    return join(fleet, tls, true);
  }

  /** As above; a data member ({@code lite} false) holds a share of the maps, and all of them when the hubs are gone. */
  static RogueMember join(TestFleet fleet, JsonObject tls, boolean lite) throws Exception {
    JsonObject cluster = new JsonObject().put("name", fleet.clusterName).put("port", TestFleet.freePort())
      .put("members", "127.0.0.1:" + fleet.hubClusterPort).put("host", "127.0.0.1")
      .put("config", Path.of("..", "cluster.xml").toAbsolutePath().normalize().toString());
    if (tls != null) {
      cluster.put("tls", tls);
    }
    ClusterLauncher.Member m = ClusterLauncher.start(new JsonObject().put("cluster", cluster), lite)
      .toCompletionStage().toCompletableFuture().get(90, TimeUnit.SECONDS);
    return new RogueMember(m);
  }

  /** Its Hazelcast member id (what the hub's cluster view names). */
  String memberId() {
    return member.clusterManager().getHazelcastInstance().getCluster().getLocalMember().getUuid().toString();
  }

  Vertx vertx() {
    return member.vertx();
  }

  /** Everything the member can read from one of the cluster's maps, as stored. */
  java.util.Map<Object, Object> readMap(String name) {
    return new java.util.HashMap<>(member.clusterManager().getHazelcastInstance().getMap(name));
  }

  /** The stored form of one entry of one of the cluster's maps. */
  String readEntry(String name, String key) {
    return (String) member.clusterManager().getHazelcastInstance().getMap(name).get(key);
  }

  /** Completes with the next value written to {@code key} of map {@code name} (by any member). */
  java.util.concurrent.CompletableFuture<String> nextWrite(String name, String key) {
    java.util.concurrent.CompletableFuture<String> next = new java.util.concurrent.CompletableFuture<>();
    com.hazelcast.map.IMap<String, String> map = member.clusterManager().getHazelcastInstance().getMap(name);
    java.util.UUID[] registration = new java.util.UUID[1];
    registration[0] = map.addEntryListener((com.hazelcast.map.listener.EntryAddedListener<String, String>) e -> {
      next.complete(e.getValue());
    }, key, true);
    next.whenCompleteAsync((v, err) -> map.removeEntryListener(registration[0]));
    return next;
  }

  /** Completes when this member's cluster merged into another (Hazelcast resets its member id then). */
  java.util.concurrent.CompletableFuture<Void> merged() {
    java.util.concurrent.CompletableFuture<Void> merged = new java.util.concurrent.CompletableFuture<>();
    member.clusterManager().getHazelcastInstance().getLifecycleService().addLifecycleListener(e -> {
      if (e.getState() == com.hazelcast.core.LifecycleEvent.LifecycleState.MERGED) {
        merged.complete(null);
      }
    });
    return merged;
  }

  /** Removes an entry from one of the cluster's maps, as any member can. */
  void removeEntry(String name, String key) {
    member.clusterManager().getHazelcastInstance().getMap(name).remove(key);
  }

  /** The port its cluster member listens on (a restarted hub that should find it names it). */
  int clusterPort() {
    return member.clusterManager().getHazelcastInstance().getCluster().getLocalMember().getAddress().getPort();
  }

  /** Writes into one of the cluster's maps, as any member can. */
  void writeMap(String name, String key, String value) {
    member.clusterManager().getHazelcastInstance().getMap(name).put(key, value);
  }

  @Override
  public void close() throws Exception {
    member.vertx().close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
