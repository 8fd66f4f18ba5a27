package io.fleetbus.hub.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.shared.trust.Digests;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two real Hazelcast data members (two hubs) in one JVM sharing sealed maps: a write on one is read on the
 * other, only ciphertext is stored, a hub with other keys reads nothing, the other hub hears of a change,
 * and of many compare-and-sets racing from both hubs on one entry exactly one wins.
 */
@Timeout(120)
class SharedMapTest {
  private static final byte[] STORE_KEY = Digests.randomBytes(32);
  private static ClusterLauncher.Member hubA;
  private static ClusterLauncher.Member hubB;
  private static FleetState fleetA;
  private static FleetState fleetB;

  @BeforeAll
  static void twoHubs() throws Exception {
    String name = "fleetbus-shared-" + UUID.randomUUID();
    int portA;
    try (ServerSocket s = new ServerSocket(0)) {
      portA = s.getLocalPort();
    }
    String config = Path.of("..", "cluster.xml").toAbsolutePath().normalize().toString();
    hubA = await(ClusterLauncher.start(new JsonObject().put("cluster", new JsonObject().put("name", name)
      .put("port", portA).put("members", "127.0.0.1:" + portA).put("config", config)), false));
    hubB = await(ClusterLauncher.start(new JsonObject().put("cluster", new JsonObject().put("name", name)
      .put("port", portA + 1).put("members", "127.0.0.1:" + portA).put("config", config)), false));
    fleetA = new FleetState(hubA.clusterManager().getHazelcastInstance(), STORE_KEY);
    fleetB = new FleetState(hubB.clusterManager().getHazelcastInstance(), STORE_KEY);
    assertEquals(2, hubA.clusterManager().getHazelcastInstance().getCluster().getMembers().size(), "one cluster");
  }

  @AfterAll
  static void stop() throws Exception {
    await(hubB.vertx().close());
    await(hubA.vertx().close());
  }

  @Test
  void writtenOnOneHubReadOnTheOtherStoredSealedUnreadableWithOtherKeys() throws Exception {
    Context a = hubA.vertx().getOrCreateContext();
    Context b = hubB.vertx().getOrCreateContext();
    await(fleetA.map("fleetbus.test-read").set(a, "k1", new JsonObject().put("command", "echo secret-value")));
    assertEquals("echo secret-value", await(fleetB.map("fleetbus.test-read").get(b, "k1")).value().getString("command"));
    Object raw = hubB.clusterManager().getHazelcastInstance().getMap("fleetbus.test-read").get("k1");
    assertFalse(String.valueOf(raw).contains("secret-value"), "stored sealed: " + raw);
    FleetState otherKeys = new FleetState(hubB.clusterManager().getHazelcastInstance(), Digests.randomBytes(32));
    assertTrue(await(otherKeys.map("fleetbus.test-read").entries(b)).isEmpty(), "another fleet's key opens nothing");
    assertEquals(1, hubA.clusterManager().getHazelcastInstance().getConfig().getMapConfig("fleetbus.test-read")
      .getBackupCount(), "one backup on the other hub");
  }

  @Test
  void theOtherHubHearsOfAChangeButNotOfItsOwn() throws Exception {
    Context a = hubA.vertx().getOrCreateContext();
    Context b = hubB.vertx().getOrCreateContext();
    SharedMap onB = fleetB.map("fleetbus.test-listen");
    CompletableFuture<JsonObject> heardOnB = new CompletableFuture<>();
    CompletableFuture<String> ownOnB = new CompletableFuture<>();
    onB.listen(b, (key, value) -> {
      if (key.equals("from-b")) {
        ownOnB.complete(key);
      } else {
        heardOnB.complete(value);
      }
    });
    await(onB.set(b, "from-b", new JsonObject().put("by", "b")));
    await(fleetA.map("fleetbus.test-listen").set(a, "from-a", new JsonObject().put("by", "a")));
    assertEquals("a", heardOnB.get(20, TimeUnit.SECONDS).getString("by"));
    assertFalse(ownOnB.isDone(), "a hub is not told of its own writes");
  }

  @Test
  void ofManyCompareAndSetsRacingFromBothHubsExactlyOneWins() throws Exception {
    Context a = hubA.vertx().getOrCreateContext();
    Context b = hubB.vertx().getOrCreateContext();
    SharedMap onA = fleetA.map("fleetbus.test-cas");
    SharedMap onB = fleetB.map("fleetbus.test-cas");
    await(onA.set(a, "approval", new JsonObject().put("status", "pending")));
    SharedMap.Entry seenByA = await(onA.get(a, "approval"));
    SharedMap.Entry seenByB = await(onB.get(b, "approval"));
    List<Future<Boolean>> tries = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      tries.add(onA.replace(a, seenByA, new JsonObject().put("status", "approved").put("by", "a" + i)));
      tries.add(onB.replace(b, seenByB, new JsonObject().put("status", "denied").put("by", "b" + i)));
    }
    int won = 0;
    for (Future<Boolean> t : tries) {
      won += await(t) ? 1 : 0;
    }
    assertEquals(1, won, "exactly one decision");
    JsonObject decided = await(onB.get(b, "approval")).value();
    assertTrue(List.of("approved", "denied").contains(decided.getString("status")), decided.encode());
    assertNull(await(onA.putIfAbsent(a, "fresh", new JsonObject().put("n", 1))), "first take");
    assertEquals(1, await(onB.putIfAbsent(b, "fresh", new JsonObject().put("n", 2))).value().getInteger("n"),
      "a second take gets the first value");
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
