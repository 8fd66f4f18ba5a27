package io.fleetbus.hub.enrollment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.shared.trust.Digests;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A hub that joins while a node enrolls through another hub (the hub-join hello race, credentials side). The joining
 * hub listens to {@code fleetbus.credentials}, then reads it; a credential written after the read and heard before the
 * read's answer was handled made the read's older entry look like a replay of what this hub knew better, and the hub
 * wrote a revocation of the node over the new credential: every hub started later revoked a node it had never been
 * told to. Here the newer credential is written right after the joining hub has read and opened every entry (a hook on
 * the read, no sleep) and heard before the read is handled. Two Hazelcast data members in this JVM.
 */
@Timeout(120)
class CredentialsJoinTest {
  private static final byte[] STORE_KEY = Digests.randomBytes(32);

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  private static ClusterLauncher.Member start(String name, int port, int seed) throws Exception {
    String config = Path.of("..", "cluster.xml").toAbsolutePath().normalize().toString();
    return await(ClusterLauncher.start(new JsonObject().put("cluster", new JsonObject().put("name", name)
      .put("port", port).put("members", "127.0.0.1:" + seed).put("host", "127.0.0.1").put("config", config)), false));
  }

  /** {@code real}, except that right after a whole-map read of {@code fleetbus.credentials}, {@code after} runs once. */
  private static HazelcastInstance afterRead(HazelcastInstance real, Runnable after) {
    AtomicBoolean fired = new AtomicBoolean();
    return (HazelcastInstance) Proxy.newProxyInstance(HazelcastInstance.class.getClassLoader(),
      new Class<?>[] {HazelcastInstance.class}, (proxy, method, args) -> {
        Object answer = invoke(method, real, args);
        if (!"getMap".equals(method.getName()) || !FleetState.CREDENTIALS.equals(args[0])) {
          return answer;
        }
        IMap<?, ?> map = (IMap<?, ?>) answer;
        return Proxy.newProxyInstance(IMap.class.getClassLoader(), new Class<?>[] {IMap.class}, (p, m, a) -> {
          Object read = invoke(m, map, a);
          return "entrySet".equals(m.getName()) && fired.compareAndSet(false, true)
            ? thenRun((java.util.Set<?>) read, after) : read;
        });
      });
  }

  /** {@code set}, running {@code after} once its iteration has ended (every entry was read and opened by then). */
  private static <E> java.util.Set<E> thenRun(java.util.Set<E> set, Runnable after) {
    return new java.util.AbstractSet<>() {
      @Override
      public java.util.Iterator<E> iterator() {
        java.util.Iterator<E> it = set.iterator();
        return new java.util.Iterator<>() {
          private boolean ran;

          @Override
          public boolean hasNext() {
            boolean more = it.hasNext();
            if (!more && !ran) {
              ran = true;
              after.run();
            }
            return more;
          }

          @Override
          public E next() {
            return it.next();
          }
        };
      }

      @Override
      public int size() {
        return set.size();
      }
    };
  }

  private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static NodeCredential credential(long at) {
    return new NodeCredential("n1", Digests.randomBytes(32), null, 0, at, at);
  }

  @Test
  void aCredentialWrittenWhileAHubJoinsIsTakenAndNotRevoked() throws Exception {
    String name = "fleetbus-credentials-join-" + UUID.randomUUID();
    int seed;
    try (ServerSocket s = new ServerSocket(0)) {
      seed = s.getLocalPort();
    }
    ClusterLauncher.Member hubB = start(name, seed, seed);
    ClusterLauncher.Member hubA = null;
    try {
      hubA = start(name, seed + 1, seed);
      Context b = hubB.vertx().getOrCreateContext();
      Context a = hubA.vertx().getOrCreateContext();
      FleetState fleetB = new FleetState(hubB.clusterManager().getHazelcastInstance(), STORE_KEY);
      SharedCredentials atB = new SharedCredentials(fleetB);
      long enrolledAt = System.currentTimeMillis();
      NodeCredential first = credential(enrolledAt);
      NodeCredential second = credential(enrolledAt + 1); // the node enrolled again (its first answer was lost)
      await(atB.publish(b, first));

      List<NodeCredential> applied = new CopyOnWriteArrayList<>();
      CountDownLatch heardSecond = new CountDownLatch(1);
      HazelcastInstance hz = afterRead(hubA.clusterManager().getHazelcastInstance(), () -> {
        try {
          await(atB.publish(b, second));
          assertTrue(heardSecond.await(30, TimeUnit.SECONDS), "hub A heard the second credential");
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      SharedCredentials atA = new SharedCredentials(new FleetState(hz, STORE_KEY));
      Promise<Void> joined = Promise.promise();
      a.runOnContext(v -> atA.join(a, List.of(), Map.of(), c -> {
        applied.add(c);
        if (c.rotatedAt() == second.rotatedAt()) {
          heardSecond.countDown();
        }
      }).onComplete(joined));
      await(joined.future());

      assertEquals(List.of(second.rotatedAt()), applied.stream().map(NodeCredential::rotatedAt).toList(),
        "hub A took the second credential (the first was older when its read was handled)");
      JsonObject shared = await(fleetB.map(FleetState.CREDENTIALS).get(b, "n1")).value();
      assertNotNull(shared.getString("current"), "hub A wrote a revocation of the node over its new credential: "
        + shared.encode());
      assertEquals(Digests.base64Url(second.current()), shared.getString("current"));
    } finally {
      for (ClusterLauncher.Member m : new ClusterLauncher.Member[] {hubA, hubB}) {
        if (m != null) {
          await(m.vertx().close());
        }
      }
    }
  }
}
