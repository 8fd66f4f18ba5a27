package io.fleetbus.shared.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vertx.core.Future;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.spi.cluster.NodeInfo;
import io.vertx.spi.cluster.hazelcast.impl.HazelcastNodeInfo;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 32, item 2: a keyless member rewrites the cluster registry's entries ({@code __vertx.nodeInfo}: where a
 * member's event bus listens) of a hub and of a node to name its own event bus. Node to hub, hub to node and hub to hub
 * all take the member's proven address ({@link PinnedClusterManager#getNodeInfo}). Five Hazelcast members in this JVM.
 */
@Timeout(180)
class ProvenBusAddressTest {
  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(90, TimeUnit.SECONDS);
  }

  private static ClusterLauncher.Member start(String name, int port, int seed, boolean lite, Pins pins) throws Exception {
    String config = Path.of("..", "cluster.xml").toAbsolutePath().normalize().toString();
    return await(ClusterLauncher.start(new JsonObject().put("cluster", new JsonObject().put("name", name)
      .put("port", port).put("members", "127.0.0.1:" + seed).put("host", "127.0.0.1").put("config", config)), lite,
      null, null, pins));
  }

  /** The event bus's id of a member (vertx-hazelcast's member attribute) and its member uuid. */
  private static String busNodeOf(ClusterLauncher.Member asker, ClusterLauncher.Member member) {
    String uuid = uuidOf(member);
    return asker.clusterManager().getHazelcastInstance().getCluster().getMembers().stream()
      .filter(m -> m.getUuid().toString().equals(uuid)).findFirst().orElseThrow().getAttribute("__vertx.nodeId");
  }

  private static String uuidOf(ClusterLauncher.Member member) {
    return member.clusterManager().getHazelcastInstance().getCluster().getLocalMember().getUuid().toString();
  }

  private static String busOf(ClusterLauncher.Member member) {
    NodeInfo info = member.clusterManager().getNodeInfo();
    return info.host() + ":" + info.port();
  }

  /**
   * The rogue rewrites the registry's entries of a hub and of a node's member to name its own event bus. A member whose
   * pins know both members but not their addresses (what the registry alone tells: the check off) reaches neither (its
   * requests time out: the attack). A member whose pins know the hub's proven address (a node: from the hub's signed
   * statement; a second hub: likewise) and the node's (a hub: from the node's proven hello, or another hub's sealed
   * registration of it) reaches both.
   */
  @Test
  void rewrittenRegistryEntriesSendNothingToTheRogueWhereTheAddressesAreProven() throws Exception {
    String name = "fleetbus-proven-bus-" + UUID.randomUUID();
    int seed;
    try (ServerSocket s = new ServerSocket(0)) {
      seed = s.getLocalPort();
    }
    ClusterLauncher.Member hub = start(name, seed, seed, false, null);
    ClusterLauncher.Member node = null;
    ClusterLauncher.Member rogue = null;
    ClusterLauncher.Member proven = null;
    ClusterLauncher.Member unproven = null;
    try {
      await(hub.vertx().eventBus().consumer("fleet.hub.test", m -> m.reply("hub")).completion());
      node = start(name, seed + 1, seed, true, null);
      await(node.vertx().eventBus().consumer("fleet.node.n1.call", m -> m.reply("node")).completion());
      rogue = start(name, seed + 2, seed, true, null);
      var registry = rogue.clusterManager().getHazelcastInstance().getMap("__vertx.nodeInfo");
      String nodeBus = busOf(node);
      String hubBus = busOf(hub);
      registry.put(busNodeOf(rogue, node), new HazelcastNodeInfo(rogue.clusterManager().getNodeInfo()));
      registry.put(busNodeOf(rogue, hub), new HazelcastNodeInfo(rogue.clusterManager().getNodeInfo()));

      MemberPins registryOnly = new MemberPins();
      registryOnly.pin("n1", uuidOf(node));
      unproven = start(name, seed + 3, seed, true, registryOnly);
      DeliveryOptions quick = new DeliveryOptions().setSendTimeout(3000);
      Future<?> toNode = unproven.vertx().eventBus().request("fleet.node.n1.call", "call", quick);
      Future<?> toHub = unproven.vertx().eventBus().request("fleet.hub.test", "hello", quick);
      for (Future<?> lost : List.of(toNode, toHub)) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(lost));
        assertEquals(true, String.valueOf(e.getCause()).contains("TIMEOUT"), "the attack: " + e.getCause());
      }

      MemberPins adopted = new MemberPins();
      adopted.pin("n1", uuidOf(node), nodeBus);
      adopted.hubBus(uuidOf(hub), hubBus);
      proven = start(name, seed + 4, seed, true, adopted);
      DeliveryOptions patient = new DeliveryOptions().setSendTimeout(10_000);
      assertEquals("node", await(proven.vertx().eventBus().request("fleet.node.n1.call", "call", patient)).body());
      assertEquals("hub", await(proven.vertx().eventBus().request("fleet.hub.test", "hello", patient)).body());
    } finally {
      for (ClusterLauncher.Member m : new ClusterLauncher.Member[] {unproven, proven, rogue, node, hub}) {
        if (m != null) {
          await(m.vertx().close());
        }
      }
    }
  }
}
