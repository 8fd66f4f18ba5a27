package io.fleetbus.shared.cluster;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Members of one new cluster in the test JVM (the repository's cluster.xml, loopback, Hazelcast ports from a free
 * seed): what the cluster tests of this package that need no second process start. Closed in the reverse order.
 */
final class InJvmMembers implements AutoCloseable {
  private final String name;
  private final int seed;
  private final Deque<ClusterLauncher.Member> started = new ArrayDeque<>();

  InJvmMembers(String prefix) throws IOException {
    this.name = prefix + "-" + UUID.randomUUID();
    try (ServerSocket s = new ServerSocket(0)) {
      this.seed = s.getLocalPort();
    }
  }

  static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(90, TimeUnit.SECONDS);
  }

  static String uuidOf(ClusterLauncher.Member member) {
    return member.clusterManager().getHazelcastInstance().getCluster().getLocalMember().getUuid().toString();
  }

  /** The next member: a data member (a hub) or a lite one (a node), with {@code pins} (null: none). */
  ClusterLauncher.Member start(boolean lite, Pins pins) throws Exception {
    String config = Path.of("..", "cluster.xml").toAbsolutePath().normalize().toString();
    ClusterLauncher.Member member = await(ClusterLauncher.start(new JsonObject().put("cluster", new JsonObject()
      .put("name", name).put("port", seed + started.size()).put("members", "127.0.0.1:" + seed)
      .put("host", "127.0.0.1").put("config", config)), lite, null, null, pins));
    started.push(member);
    return member;
  }

  @Override
  public void close() throws Exception {
    while (!started.isEmpty()) {
      await(started.pop().vertx().close());
    }
  }
}
