package io.fleetbus.bench.sim;

import io.fleetbus.shared.cluster.ClusterLauncher;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A JVM that joins the fleet's cluster (a lite member, like a node) and simulates many nodes. Cluster
 * settings come from the FLEETBUS_CLUSTER_* variables; the hub to enroll with from FLEETBUS_BENCH_HUB_PORT and
 * FLEETBUS_BENCH_HUB_TOKEN (an admin token); each node keeps its trust under FLEETBUS_NODE_DATA/&lt;member&gt;/&lt;node&gt;. Prints {@code simulator ready}, then reads
 * commands from standard input, one per line:
 * <pre>
 * add COUNT PREFIX ANSWERS_CALLS [HOST:PORT] → "added [count: …, total: …, failed: …, ms: …]" once all enrolled
 *                                  (with HOST:PORT each node links to that edge endpoint instead of the cluster)
 * silence NODE_ID                  → "silenced [node: …, lastBeatAt: EPOCH_MS]" after its next heartbeat
 * leave NODE_ID                    → "left [node: …, at: EPOCH_MS]" once an edge node said its proven goodbye over its
 *                                  link (sent at EPOCH_MS) and closed the link
 * </pre>
 * and after every full heartbeat interval: {@code cycle [published: TOTAL_SO_FAR, at: EPOCH_MS]}.
 * Ends when its standard input closes.
 */
public final class NodeSimulatorMain {
  /** Nodes an {@code add} enrolls at once (edge nodes: as many links from this JVM's address, each unproven until its hello). */
  public static final int JOINS_IN_FLIGHT = 64;

  private NodeSimulatorMain() {
  }

  public static void main(String[] args) throws Exception {
    ClusterLauncher.Member member = ClusterLauncher.start(new JsonObject(), true)
      .toCompletionStage().toCompletableFuture().get();
    String memberId = member.clusterManager().getHazelcastInstance().getCluster().getLocalMember().getUuid().toString();
    SimulatedFleet fleet = new SimulatedFleet(memberId, Integer.parseInt(System.getenv("FLEETBUS_BENCH_HUB_PORT")),
      System.getenv("FLEETBUS_BENCH_HUB_TOKEN"), Path.of(System.getenv("FLEETBUS_NODE_DATA")).resolve(memberId));
    member.vertx().deployVerticle(fleet).toCompletionStage().toCompletableFuture().get();
    System.out.println("simulator ready [member: " + memberId + "]");
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        if (!line.isBlank()) {
          fleet.execute(line);
        }
      }
    } catch (IOException e) {
      System.out.println("simulator input failed: " + e.getMessage());
    }
    member.vertx().close().toCompletionStage().toCompletableFuture().get();
    System.exit(0);
  }
}
