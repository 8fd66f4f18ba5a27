package io.fleetbus.shared.cluster;

import static io.fleetbus.shared.cluster.InJvmMembers.await;
import static io.fleetbus.shared.cluster.InJvmMembers.uuidOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vertx.core.Future;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.spi.cluster.NodeInfo;
import io.vertx.spi.cluster.hazelcast.impl.HazelcastNodeInfo;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 32, item 2: a keyless member rewrites the cluster registry's entries ({@code __vertx.nodeInfo}: where a
 * member's event bus listens) of a hub and of a node to name its own event bus. Node to hub, hub to node and hub to hub
 * all take the member's proven address ({@link PinnedClusterManager#getNodeInfo}). Five Hazelcast members in this JVM.
 */
@Timeout(180)
class ProvenBusAddressTest {
  /** The event bus's id of a member (vertx-hazelcast's member attribute) and its member uuid. */
  private static String busNodeOf(ClusterLauncher.Member asker, ClusterLauncher.Member member) {
    String uuid = uuidOf(member);
    return asker.clusterManager().getHazelcastInstance().getCluster().getMembers().stream()
      .filter(m -> m.getUuid().toString().equals(uuid)).findFirst().orElseThrow().getAttribute("__vertx.nodeId");
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
    try (InJvmMembers cluster = new InJvmMembers("fleetbus-proven-bus")) {
      ClusterLauncher.Member hub = cluster.start(false, null);
      await(hub.vertx().eventBus().consumer("fleet.hub.test", m -> m.reply("hub")).completion());
      ClusterLauncher.Member node = cluster.start(true, null);
      await(node.vertx().eventBus().consumer("fleet.node.n1.call", m -> m.reply("node")).completion());
      ClusterLauncher.Member rogue = cluster.start(true, null);
      var registry = rogue.clusterManager().getHazelcastInstance().getMap("__vertx.nodeInfo");
      String nodeBus = busOf(node);
      String hubBus = busOf(hub);
      registry.put(busNodeOf(rogue, node), new HazelcastNodeInfo(rogue.clusterManager().getNodeInfo()));
      registry.put(busNodeOf(rogue, hub), new HazelcastNodeInfo(rogue.clusterManager().getNodeInfo()));

      MemberPins registryOnly = new MemberPins();
      registryOnly.pin("n1", uuidOf(node));
      ClusterLauncher.Member unproven = cluster.start(true, registryOnly);
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
      ClusterLauncher.Member proven = cluster.start(true, adopted);
      DeliveryOptions patient = new DeliveryOptions().setSendTimeout(10_000);
      assertEquals("node", await(proven.vertx().eventBus().request("fleet.node.n1.call", "call", patient)).body());
      assertEquals("hub", await(proven.vertx().eventBus().request("fleet.hub.test", "hello", patient)).body());
    }
  }
}
