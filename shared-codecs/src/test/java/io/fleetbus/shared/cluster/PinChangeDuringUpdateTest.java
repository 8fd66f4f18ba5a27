package io.fleetbus.shared.cluster;

import static io.fleetbus.shared.cluster.InJvmMembers.await;
import static io.fleetbus.shared.cluster.InJvmMembers.uuidOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The second half of the hub-join hello race: a hub that joins registers its consumers (hellos, heartbeats) and is
 * proven to the node (its signed statement) at about the same time, heard on different threads. When the update of an
 * address's consumers was filtered with the pins from before the hub was proven and told to the event bus after the
 * pins' change had been told, the event bus kept the old receivers for good: the new hub got nothing from the node. Here
 * the update is held right after its filtering (a latch in the pins, no sleep) while the pins change; the node must
 * reach the new hub afterwards. Three Hazelcast members in this JVM.
 */
@Timeout(120)
class PinChangeDuringUpdateTest {
  private static final String ADDRESS = "fleet.hub.race";

  /** A node's pins of {@link #ADDRESS}: the allowed members; once armed, the next filtering is held after its answer. */
  private static final class HeldPins implements Pins {
    volatile Set<String> allowed = Set.of();
    volatile Consumer<String> changed = a -> { };
    final AtomicBoolean armed = new AtomicBoolean();
    final CountDownLatch filtered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile Thread held;

    @Override
    public Set<String> membersFor(String address) {
      Set<String> answer = allowed;
      if (armed.compareAndSet(true, false)) {
        held = Thread.currentThread();
        filtered.countDown();
        try {
          release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return answer;
    }

    /** Returns once the held thread has left the cluster manager: the update it filtered is told by then. */
    void toldByHeldThread() {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < deadline && java.util.Arrays.stream(held.getStackTrace())
        .anyMatch(f -> f.getClassName().startsWith(PinnedClusterManager.class.getName()))) {
        Thread.onSpinWait();
      }
    }

    @Override
    public boolean covers(String address) {
      return ADDRESS.equals(address);
    }

    @Override
    public void onChange(Consumer<String> listener) {
      changed = listener;
    }
  }

  @Test
  void anUpdateFilteredBeforeTheNewHubWasProvenDoesNotHideItFromTheNode() throws Exception {
    try (InJvmMembers cluster = new InJvmMembers("fleetbus-pin-race")) {
      ClusterLauncher.Member hubB = cluster.start(false, null);
      await(hubB.vertx().eventBus().consumer(ADDRESS, m -> m.reply("B")).completion());
      HeldPins pins = new HeldPins();
      pins.allowed = Set.of(uuidOf(hubB));
      ClusterLauncher.Member node = cluster.start(true, pins);
      ClusterLauncher.Member hubA = cluster.start(false, null);
      assertEquals("B", await(node.vertx().eventBus().request(ADDRESS, "hello")).body(), "the node reaches hub B");

      pins.armed.set(true);
      await(hubA.vertx().eventBus().consumer(ADDRESS, m -> m.reply("A")).completion());
      assertTrue(pins.filtered.await(30, TimeUnit.SECONDS), "the node heard hub A's consumer and filtered it");
      // hub A is proven now (its statement heard on another thread) and the pins say so, as HubMembers does
      Set<String> both = new HashSet<>(Set.of(uuidOf(hubB), uuidOf(hubA)));
      pins.allowed = both;
      pins.changed.accept(null);
      pins.release.countDown(); // the held update, filtered before the change, is told now
      pins.toldByHeldThread();

      Set<Object> answered = new HashSet<>();
      for (int i = 0; i < 20 && answered.size() < 2; i++) {
        answered.add(await(node.vertx().eventBus().request(ADDRESS, "hello")).body());
      }
      assertEquals(Set.of("A", "B"), answered, "20 requests from the node after hub A was proven reached only " + answered);
    }
  }
}
