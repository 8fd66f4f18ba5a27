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
}
