package io.fleetbus.node.trust;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.NodeRegistered;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.EdDsaJws;
import io.fleetbus.shared.trust.Ed25519Keys;
import io.fleetbus.shared.trust.NodeProofs;
import io.fleetbus.shared.trust.SealedBox;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.core.spi.cluster.NodeInfo;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hub-join hello race (seen once in CI, PartitionTest: hub A joined while the nodes started and enrolled through hub
 * B; n2 came online on A, n1 never did in 60 s). A node learns which members are hubs of its fleet from their signed
 * statements in {@code fleetbus.hubs} ({@link HubMembers#follow}, right after it joins the cluster); what it sends to
 * hubs — hellos, heartbeats — goes only to those. Hub A writes its statement right after it joins. When that write
 * fell between the node's read of the map and its listener taking effect, the node never knew A for a hub: its
 * heartbeats went to B alone, for as long as it ran, and A (which knew the node from the shared registrations) waited
 * for a first heartbeat that never came. Here A's statement is written at exactly that moment (a hook on the node's read
 * of the map, no sleep); the node must reach A within the README's 10 s. Three Hazelcast members in this JVM.
 */
@Timeout(120)
class HubJoinsWhileNodeReadsHubsTest {
  private static final long BOUND_MS = 10_000;
  @TempDir
  Path data;

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(90, TimeUnit.SECONDS);
  }

  private static ClusterLauncher.Member start(String name, int port, int seed, boolean lite, HubMembers pins)
    throws Exception {
    String config = Path.of("..", "cluster.xml").toAbsolutePath().normalize().toString();
    return await(ClusterLauncher.start(new JsonObject().put("cluster", new JsonObject().put("name", name)
      .put("port", port).put("members", "127.0.0.1:" + seed).put("host", "127.0.0.1").put("config", config)), lite,
      null, null, pins));
  }

  private static String uuidOf(ClusterLauncher.Member member) {
    return member.clusterManager().getHazelcastInstance().getCluster().getLocalMember().getUuid().toString();
  }

  /** The hub's statement as FleetIdentity writes it: member, fleet, event-bus address, signed with the hub key. */
  private static String statement(String privatePem, String publicPem, ClusterLauncher.Member hub) {
    NodeInfo bus = hub.clusterManager().getNodeInfo();
    return EdDsaJws.sign(Ed25519Keys.privateKey(privatePem), Ed25519Keys.keyId(Ed25519Keys.publicKey(publicPem)),
      new JsonObject().put("member", uuidOf(hub)).put("fleetId", "0123456789ab").put("bus", bus.host() + ":" + bus.port()));
  }

  /** A node enrolled with a hub that holds {@code hubKey}: it trusts that key's statements from now on. */
  private NodeTrust enrolled(String hubKey) throws Exception {
    String token = Digests.randomSecret("fbe_");
    NodeTrust trust = NodeTrust.load("n1", data, token, ToolCatalog.load());
    NodeTrust.Hello sent = trust.hello(new NodeHello("n1", "i1", "m1", "linux", "sudo", new JsonObject(), "0.1.0",
      List.of(), null));
    String credential = Digests.randomSecret("fbc_");
    String sealed = SealedBox.seal(NodeProofs.keyOf(token), "enroll", NodeProofs.enrollContext("n1", "i1", sent.nonce()),
      new JsonObject().put("credential", credential).put("hubPublicKey", hubKey));
    NodeRegistered bare = new NodeRegistered(1, 1000, sealed, hubKey);
    trust.accept(sent, new NodeRegistered(1, 1000, sealed, hubKey, NodeProofs.prove(NodeProofs.keyOf(credential),
      NodeProofs.REGISTERED, NodeProofs.registeredContent("n1", "i1", sent.nonce(), bare))));
    return trust;
  }

  /**
   * The node's Hazelcast instance, except that right after the node has read the whole of {@code fleetbus.hubs} (any
   * whole-map read), {@code between} runs once: hub A announcing itself at that moment.
   */
  private static HazelcastInstance readingHook(HazelcastInstance real, Runnable between) {
    AtomicBoolean fired = new AtomicBoolean();
    Set<String> wholeMapReads = Set.of("entrySet", "forEach", "keySet", "values", "getAll");
    return (HazelcastInstance) Proxy.newProxyInstance(HazelcastInstance.class.getClassLoader(),
      new Class<?>[] {HazelcastInstance.class}, (proxy, method, args) -> {
        Object answer = invoke(method, real, args);
        if (!"getMap".equals(method.getName())) {
          return answer;
        }
        IMap<?, ?> map = (IMap<?, ?>) answer;
        return Proxy.newProxyInstance(IMap.class.getClassLoader(), new Class<?>[] {IMap.class}, (p, m, a) -> {
          Object read = invoke(m, map, a);
          if (wholeMapReads.contains(m.getName()) && fired.compareAndSet(false, true)) {
            between.run();
          }
          return read;
        });
      });
  }

  private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Test
  void aHubThatAnnouncesItselfWhileTheNodeReadsTheHubsListGetsTheNodesHeartbeatsWithinTenSeconds() throws Exception {
    String[] hubKey = Ed25519Keys.generatePem();
    NodeTrust trust = enrolled(hubKey[1]);
    String name = "fleetbus-hub-join-" + UUID.randomUUID();
    int seed;
    try (ServerSocket s = new ServerSocket(0)) {
      seed = s.getLocalPort();
    }
    ClusterLauncher.Member hubB = start(name, seed, seed, false, null);
    ClusterLauncher.Member hubA = null;
    ClusterLauncher.Member node = null;
    try {
      hubB.clusterManager().getHazelcastInstance().getMap("fleetbus.hubs").put(uuidOf(hubB),
        statement(hubKey[0], hubKey[1], hubB));
      CountDownLatch atB = new CountDownLatch(1);
      await(hubB.vertx().eventBus().consumer(Addresses.HEARTBEAT, m -> atB.countDown()).completion());
      hubA = start(name, seed + 1, seed, false, null);
      CountDownLatch atA = new CountDownLatch(1);
      java.util.concurrent.atomic.AtomicLong firstAtA = new java.util.concurrent.atomic.AtomicLong();
      await(hubA.vertx().eventBus().consumer(Addresses.HEARTBEAT, m -> {
        firstAtA.compareAndSet(0, System.currentTimeMillis());
        atA.countDown();
      }).completion());

      HubMembers hubs = new HubMembers(trust);
      node = start(name, seed + 2, seed, true, hubs);
      ClusterLauncher.Member a = hubA;
      CountDownLatch announced = new CountDownLatch(1);
      hubs.follow(readingHook(node.clusterManager().getHazelcastInstance(), () -> {
        a.clusterManager().getHazelcastInstance().getMap("fleetbus.hubs").put(uuidOf(a), statement(hubKey[0], hubKey[1], a));
        announced.countDown();
      }));
      assertTrue(announced.await(30, TimeUnit.SECONDS), "the hook ran: hub A announced itself during the node's read");

      // the node's heartbeats, as Heartbeats publishes them, every 200 ms until both hubs heard one or the bound passed
      ClusterLauncher.Member n = node;
      long timer = n.vertx().setPeriodic(200, t -> n.vertx().eventBus().publish(Addresses.HEARTBEAT, "beat"));
      long start = System.currentTimeMillis();
      boolean heardAtB = atB.await(BOUND_MS, TimeUnit.MILLISECONDS);
      boolean heardAtA = atA.await(Math.max(1, BOUND_MS - (System.currentTimeMillis() - start)), TimeUnit.MILLISECONDS);
      n.vertx().cancelTimer(timer);
      System.out.println("hub-join race: hub A heard the node " + (heardAtA ? (firstAtA.get() - start)
        + " ms after the node's first heartbeat" : "never") + " (bound " + BOUND_MS + " ms)");
      assertTrue(heardAtB, "hub B (announced before the node joined) hears the node's heartbeats");
      assertTrue(heardAtA, "hub A, which announced itself while the node read the hubs' list, heard none of the node's"
        + " heartbeats within " + BOUND_MS + " ms (the node takes these hubs for its fleet's: "
        + hubs.membersFor(Addresses.HEARTBEAT) + "; A is " + uuidOf(a) + ")");
    } finally {
      for (ClusterLauncher.Member m : new ClusterLauncher.Member[] {node, hubA, hubB}) {
        if (m != null) {
          await(m.vertx().close());
        }
      }
    }
  }
}
