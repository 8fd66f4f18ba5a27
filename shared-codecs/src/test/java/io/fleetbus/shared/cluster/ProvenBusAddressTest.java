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
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 32, item 2: a keyless member rewrites the cluster registry's entry of a hub ({@code __vertx.nodeInfo}: where
 * its event bus listens) to name its own event bus. A member that then asks the hub's consumer reaches the rogue (its
 * request times out: the attack, shown with a plain member); a member whose pins know the hub's proven address (a
 * node: from the hub's signed statement) reaches the hub. Four Hazelcast members in this JVM.
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

  /** Pins that restrict nothing and know one member's proven event-bus address. */
  private record KnownHub(String member, String bus) implements Pins {
    @Override
    public Set<String> membersFor(String address) {
      return null;
    }

    @Override
    public boolean covers(String address) {
      return false;
    }

    @Override
    public String provenBus(String memberUuid) {
      return member.equals(memberUuid) ? bus : null;
    }

    @Override
    public void onChange(Consumer<String> listener) {
      // nothing changes
    }
  }

  @Test
  void aRewrittenRegistryEntryOfAHubSendsNothingToTheRogueWhereTheAddressIsProven() throws Exception {
    String name = "fleetbus-proven-bus-" + UUID.randomUUID();
    int seed;
    try (ServerSocket s = new ServerSocket(0)) {
      seed = s.getLocalPort();
    }
    ClusterLauncher.Member hub = start(name, seed, seed, false, null);
    ClusterLauncher.Member rogue = null;
    ClusterLauncher.Member plain = null;
    ClusterLauncher.Member node = null;
    try {
      await(hub.vertx().eventBus().consumer("fleet.hub.test", m -> m.reply("hub")).completion());
      rogue = start(name, seed + 1, seed, true, null);
      var hz = rogue.clusterManager().getHazelcastInstance();
      String hubMember = hub.clusterManager().getHazelcastInstance().getCluster().getLocalMember().getUuid().toString();
      String busNode = hz.getCluster().getMembers().stream().filter(m -> m.getUuid().toString().equals(hubMember))
        .findFirst().orElseThrow().getAttribute("__vertx.nodeId");
      NodeInfo real = hub.clusterManager().getNodeInfo();
      hz.getMap("__vertx.nodeInfo").put(busNode, new HazelcastNodeInfo(rogue.clusterManager().getNodeInfo()));

      plain = start(name, seed + 2, seed, true, null);
      ClusterLauncher.Member asker = plain;
      ExecutionException lost = assertThrows(ExecutionException.class, () -> await(asker.vertx().eventBus()
        .request("fleet.hub.test", "hello", new DeliveryOptions().setSendTimeout(3000))));
      assertEquals(true, String.valueOf(lost.getCause()).contains("TIMEOUT"), "the attack: " + lost.getCause());

      node = start(name, seed + 3, seed, true, new KnownHub(hubMember, real.host() + ":" + real.port()));
      assertEquals("hub", await(node.vertx().eventBus().request("fleet.hub.test", "hello",
        new DeliveryOptions().setSendTimeout(10_000))).body());
    } finally {
      for (ClusterLauncher.Member m : new ClusterLauncher.Member[] {node, plain, rogue, hub}) {
        if (m != null) {
          await(m.vertx().close());
        }
      }
    }
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
   * Issue 32, item 2, hub to node and hub to hub: the rogue rewrites the registry's entries of a node's member and of
   * the first hub to name its own event bus. A second hub that learned the node's proven address (its hello, or the
   * first hub's sealed registration) and the first hub's (its statement) reaches both; a hub whose pins know the
   * node's member but not its address (as the registry alone tells it: the check off) times out, the attack.
   */
  @Test
  void aRewrittenRegistryEntryOfANodeSendsNoCallToTheRogueWhereItsHelloProvedItsBus() throws Exception {
    String name = "fleetbus-proven-node-bus-" + UUID.randomUUID();
    int seed;
    try (ServerSocket s = new ServerSocket(0)) {
      seed = s.getLocalPort();
    }
    ClusterLauncher.Member hub = start(name, seed, seed, false, null);
    ClusterLauncher.Member node = null;
    ClusterLauncher.Member rogue = null;
    ClusterLauncher.Member second = null;
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

      MemberPins adopted = new MemberPins();
      adopted.pin("n1", uuidOf(node), nodeBus);
      adopted.hubBus(uuidOf(hub), hubBus);
      second = start(name, seed + 3, seed, true, adopted);
      DeliveryOptions quick = new DeliveryOptions().setSendTimeout(10_000);
      assertEquals("node", await(second.vertx().eventBus().request("fleet.node.n1.call", "call", quick)).body());
      assertEquals("hub", await(second.vertx().eventBus().request("fleet.hub.test", "hello", quick)).body());

      MemberPins registryOnly = new MemberPins();
      registryOnly.pin("n1", uuidOf(node));
      unproven = start(name, seed + 4, seed, true, registryOnly);
      ClusterLauncher.Member asker = unproven;
      ExecutionException lost = assertThrows(ExecutionException.class, () -> await(asker.vertx().eventBus()
        .request("fleet.node.n1.call", "call", new DeliveryOptions().setSendTimeout(3000))));
      assertEquals(true, String.valueOf(lost.getCause()).contains("TIMEOUT"), "the attack: " + lost.getCause());
    } finally {
      for (ClusterLauncher.Member m : new ClusterLauncher.Member[] {unproven, second, rogue, node, hub}) {
        if (m != null) {
          await(m.vertx().close());
        }
      }
    }
  }
}
