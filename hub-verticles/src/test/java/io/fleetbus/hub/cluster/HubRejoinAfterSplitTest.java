package io.fleetbus.hub.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.FileSystemXmlConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.internal.cluster.impl.ClusterServiceImpl;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import io.fleetbus.hub.auth.DirectiveSigner;
import io.fleetbus.hub.auth.HubKeys;
import io.fleetbus.shared.cluster.MemberPins;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, item 1's first step, in one JVM: two hubs' Hazelcast members with the shipped cluster.xml (its merge
 * schedule) are split — each declares the other gone, as after a network cut — and merge again by themselves; the hub
 * whose half merged rejoins under a new member id, and the other hub knows it for a hub of this fleet again by its
 * signed statement (not an intruder, "neither a hub of this fleet nor a proven node's"), so nodes, which send only to
 * proven hubs, reach it again without a restart. Before: the merge came after Hazelcast's 300 s, and the rejoined
 * member stayed unknown for good. Each side's {@link SplitWatch} names the hub it lost without a goodbye while split
 * (half of the hubs; a forged goodbye changes nothing), and nothing once merged; a hub that stops cleanly says its
 * signed goodbye and is not listed as lost.
 */
@Timeout(120)
class HubRejoinAfterSplitTest {
  @TempDir
  Path keys;
  private final Vertx vertx = Vertx.vertx();
  private HazelcastInstance a;
  private HazelcastInstance b;

  @AfterEach
  void close() throws Exception {
    for (HazelcastInstance h : new HazelcastInstance[] {a, b}) {
      if (h != null) {
        h.getLifecycleService().terminate();
      }
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aHubRejoiningUnderANewMemberIdIsKnownByItsProofWithinSeconds() throws Exception {
    DirectiveSigner signer = HubKeys.loadOrCreate(keys).directiveSigner(60_000);
    FleetIdentity fleet = FleetIdentity.loadOrCreate(keys);
    String cluster = "rejoin-" + UUID.randomUUID();
    int portA = freePort();
    int portB = freePort();
    a = Hazelcast.newHazelcastInstance(config(cluster, portA, portB));
    b = Hazelcast.newHazelcastInstance(config(cluster, portB, portA));
    fleet.claim(vertx, a, signer);
    fleet.claim(vertx, b, signer);
    CompletableFuture<HazelcastInstance> merged = new CompletableFuture<>();
    for (HazelcastInstance h : List.of(a, b)) {
      h.getLifecycleService().addLifecycleListener(e -> {
        if (e.getState() == LifecycleEvent.LifecycleState.MERGED) {
          merged.complete(h);
        }
      });
    }

    SplitWatch watchA = new SplitWatch(vertx, a, signer).start();
    SplitWatch watchB = new SplitWatch(vertx, b, signer).start();
    // any member can write the goodbyes: an unsigned one for b hides nothing
    a.getMap(SplitWatch.GOODBYES).put(b.getCluster().getLocalMember().getUuid().toString(), "forged goodbye");
    long cut = System.nanoTime();
    split(a, b);
    split(b, a);
    // each side names the hub it lost without a goodbye (what /ready's cluster check shows), and holds half
    for (SplitWatch w : List.of(watchA, watchB)) {
      await(() -> w.judged.get() == 1, 10);
      JsonObject state = w.state();
      assertEquals("half", state.getString("state"), state.encode());
      assertEquals(1, state.getJsonArray("lostHubs").size(), state.encode());
    }
    HazelcastInstance rejoined;
    try {
      rejoined = merged.get(60, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("the halves did not merge within 60 s of the cut (cluster.xml's merge schedule: first "
        + a.getConfig().getProperty("hazelcast.merge.first.run.delay.seconds") + " s, then every "
        + a.getConfig().getProperty("hazelcast.merge.next.run.delay.seconds") + " s; null: Hazelcast's 300 s / 120 s)");
    }
    long mergedMs = (System.nanoTime() - cut) / 1_000_000;
    HazelcastInstance other = rejoined == a ? b : a;
    String newId = rejoined.getCluster().getLocalMember().getUuid().toString();
    assertEquals(2, other.getCluster().getMembers().size(), "one cluster again");

    boolean announced = announced(other.getMap(FleetIdentity.HUBS_MAP), newId, 10);
    JsonObject seen = new IntruderWatch(vertx, other, fleet, signer, new MemberPins()).snapshot().getJsonArray("members")
      .stream().map(JsonObject.class::cast).filter(m -> newId.equals(m.getString("member"))).findFirst().orElseThrow();
    assertTrue(announced && "hub".equals(seen.getString("role")), "the hub that rejoined (merged " + mergedMs
      + " ms after the cut) as seen by the other: " + seen.encode());
    assertTrue(mergedMs < 30_000, "merged " + mergedMs + " ms after the cut");
    await(() -> watchA.lostHubs() == 0 && watchB.lostHubs() == 0, 10);
    assertEquals("whole", watchA.state().getString("state"), watchA.state().encode());
  }

  @Test
  void aHubThatStopsCleanlySaysGoodbyeAndIsNotListedAsLost() throws Exception {
    String cluster = "goodbye-" + UUID.randomUUID();
    int portA = freePort();
    int portB = freePort();
    a = Hazelcast.newHazelcastInstance(config(cluster, portA, portB));
    b = Hazelcast.newHazelcastInstance(config(cluster, portB, portA));
    DirectiveSigner signer = HubKeys.loadOrCreate(keys).directiveSigner(60_000);
    SplitWatch watchA = new SplitWatch(vertx, a, signer).start();
    new SplitWatch(vertx, b, signer).start();
    b.getLifecycleService().shutdown();
    b = null;
    await(() -> watchA.judged.get() == 1, 20);
    assertEquals(new JsonObject().put("state", "whole").put("hubs", 1).put("lostHubs", new io.vertx.core.json.JsonArray()),
      watchA.state());
  }

  /** Waits until {@code done} holds (checked every 50 ms), failing after {@code seconds}. */
  private static void await(java.util.function.BooleanSupplier done, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + seconds + " s");
      }
      Thread.sleep(50);
    }
  }

  /** Whether {@code hubs} holds an entry for {@code member} within {@code seconds} (heard, not polled). */
  private static boolean announced(IMap<String, String> hubs, String member, int seconds) throws Exception {
    CompletableFuture<Void> heard = new CompletableFuture<>();
    hubs.addEntryListener((EntryAddedListener<String, String>) e -> {
      if (member.equals(e.getKey())) {
        heard.complete(null);
      }
    }, false);
    if (hubs.containsKey(member)) {
      return true;
    }
    try {
      heard.get(seconds, TimeUnit.SECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    }
  }

  /** {@code from} declares {@code gone} dead and drops its connection, as a member does after a cut. */
  private static void split(HazelcastInstance from, HazelcastInstance gone) {
    ClusterServiceImpl members = ((HazelcastInstanceProxy) from).getOriginal().node.getClusterService();
    members.suspectMember(members.getMember(gone.getCluster().getLocalMember().getAddress()), "test: link cut", true);
  }

  /** The shipped cluster.xml (merge schedule, heartbeats), on loopback ports of this test. */
  private static Config config(String cluster, int port, int peer) throws IOException {
    Config c = new FileSystemXmlConfig(Path.of("..", "cluster.xml").toFile()).setClusterName(cluster);
    c.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
    c.getNetworkConfig().getJoin().getTcpIpConfig().setMembers(List.of("127.0.0.1:" + port, "127.0.0.1:" + peer));
    return c;
  }

  /** A port below the ephemeral range that nothing listens on (as TestFleet picks them). */
  private static int freePort() throws IOException {
    for (int i = 0; i < 200; i++) {
      int port = ThreadLocalRandom.current().nextInt(20_000, 32_000);
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress("127.0.0.1", port));
        return port;
      } catch (IOException taken) {
        // in use: another
      }
    }
    throw new IOException("no free port");
  }
}
