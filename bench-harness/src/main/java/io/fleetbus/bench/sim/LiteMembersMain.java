package io.fleetbus.bench.sim;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import io.fleetbus.bench.proc.Ports;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * Issue 20's membership cost: a JVM holding several real cluster members, each joined as a node joins (a Vert.x
 * clustered instance, a Hazelcast lite member, with a node's call and control consumers), so that 25, 50, 100 members
 * fit one machine. Membership only: they enroll nothing and send no fleetbus heartbeat. The cluster comes from the
 * FLEETBUS_CLUSTER_* variables (name, members, host, config); each member takes a free port of its own. Commands on
 * standard input, one per line:
 * <pre>
 * join COUNT      → "joined [count: …, total: …, ms: …]" once COUNT new members are all in the cluster (started in waves
 *                   of {@value #WAVE}: the next wave starts when the last has joined)
 * size            → "size [min: …, max: …]": the smallest and largest cluster each member here sees (hub included)
 * leave           → "left [member: UUID, at: EPOCH_MS]" as the newest member starts leaving (Vert.x close, as a node's stop)
 * seen UUID       → "seen [member: UUID, by: N, lastAt: EPOCH_MS]" once every member here has heard that UUID left
 * </pre>
 * Ends when its standard input closes.
 */
public final class LiteMembersMain {
  private static final int WAVE = 5;
  private final String tag;
  private final Deque<Joined> members = new ConcurrentLinkedDeque<>();
  /** Per member that left: when each member here heard it (member uuid → hearer uuid → epoch ms). */
  private final Map<String, Map<String, Long>> heard = new HashMap<>();
  private final Map<String, Runnable> waiting = new HashMap<>();
  private int started;

  private record Joined(ClusterLauncher.Member member, String uuid) {
  }

  private LiteMembersMain(String tag) {
    this.tag = tag;
  }

  public static void main(String[] args) throws Exception {
    LiteMembersMain main = new LiteMembersMain(args.length > 0 ? args[0] : "m");
    System.out.println("members ready");
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        String[] w = line.trim().split("\\s+");
        switch (w[0]) {
          case "join" -> main.join(Integer.parseInt(w[1]));
          case "leave" -> main.leave();
          case "seen" -> main.seen(w[1]);
          case "size" -> main.size();
          case "" -> { }
          default -> System.out.println("unknown command: " + line);
        }
      }
    }
    for (Joined j : main.members) {
      j.member().vertx().close().toCompletionStage().toCompletableFuture().get();
    }
    System.exit(0);
  }

  private void join(int count) throws Exception {
    long t0 = System.nanoTime();
    for (int done = 0; done < count; done += WAVE) {
      wave(Math.min(WAVE, count - done));
    }
    System.out.println("joined [count: " + count + ", total: " + members.size() + ", ms: "
      + (System.nanoTime() - t0) / 1_000_000 + "]");
  }

  private void size() {
    var sizes = members.stream().mapToInt(j -> j.member().clusterManager().getHazelcastInstance().getCluster()
      .getMembers().size()).summaryStatistics();
    System.out.println("size [min: " + sizes.getMin() + ", max: " + sizes.getMax() + "]");
  }

  private void wave(int count) throws Exception {
    List<Future<Joined>> joining = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String nodeId = tag + "-" + (++started);
      // one event loop each: a node's member does little but membership here, and 25 fit a JVM
      JsonObject conf = new JsonObject().put("eventLoops", 1)
        .put("cluster", new JsonObject().put("port", Ports.free()));
      joining.add(ClusterLauncher.start(conf, true).compose(m -> {
        var bus = m.vertx().eventBus();
        return Future.all(bus.consumer(Addresses.nodeCall(nodeId), msg -> msg.fail(503, "membership only")).completion(),
            bus.consumer(Addresses.nodeControl(nodeId), msg -> msg.fail(503, "membership only")).completion())
          .map(v -> listen(m));
      }));
    }
    Future.all(joining).toCompletionStage().toCompletableFuture().get();
    joining.forEach(f -> members.addLast(f.result()));
  }

  private Joined listen(ClusterLauncher.Member m) {
    var hz = m.clusterManager().getHazelcastInstance();
    String self = hz.getCluster().getLocalMember().getUuid().toString();
    hz.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {
        // only leaves are timed
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
        heard(event.getMember().getUuid().toString(), self, System.currentTimeMillis());
      }
    });
    return new Joined(m, self);
  }

  private void leave() throws Exception {
    Joined newest = members.pollLast();
    if (newest == null) {
      System.out.println("no member to leave");
      return;
    }
    System.out.println("left [member: " + newest.uuid() + ", at: " + System.currentTimeMillis() + "]");
    newest.member().vertx().close().toCompletionStage().toCompletableFuture().get();
  }

  private synchronized void heard(String left, String hearer, long at) {
    heard.computeIfAbsent(left, k -> new HashMap<>()).put(hearer, at);
    Runnable check = waiting.get(left);
    if (check != null) {
      check.run();
    }
  }

  private synchronized void seen(String left) {
    waiting.put(left, () -> {
      Map<String, Long> by = heard.getOrDefault(left, Map.of());
      if (members.stream().allMatch(j -> by.containsKey(j.uuid()))) {
        waiting.remove(left);
        long last = members.stream().mapToLong(j -> by.get(j.uuid())).max().orElse(0);
        System.out.println("seen [member: " + left + ", by: " + members.size() + ", lastAt: " + last + "]");
      }
    });
    waiting.get(left).run();
  }
}
