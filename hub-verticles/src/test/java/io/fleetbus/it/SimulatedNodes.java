package io.fleetbus.it;

import io.fleetbus.node.trust.NodeTrust;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.Metrics;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.NodeRegistered;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Protocol peers that behave like nodes (hello, heartbeats with metrics the test chooses, a call
 * address) from one clustered member in the test JVM, so a test can drive load and failures.
 */
public final class SimulatedNodes implements AutoCloseable {
  private final ClusterLauncher.Member member;
  private final Map<String, Boolean> seenCalls = new ConcurrentHashMap<>();
  private volatile long answerDelayMs;
  private final Map<String, AtomicInteger> callsReceived = new ConcurrentHashMap<>();
  private final Map<String, String> instances = new ConcurrentHashMap<>();
  private final Map<String, NodeTrust> trusts = new ConcurrentHashMap<>();
  private final Map<String, Double> load = new ConcurrentHashMap<>();
  private final AtomicInteger seq = new AtomicInteger();

  public SimulatedNodes(TestFleet fleet) throws Exception {
    this(fleet.clusterName, fleet.hubClusterPort);
  }

  public SimulatedNodes(String clusterName, int hubClusterPort) throws Exception {
    JsonObject cluster = new JsonObject().put("name", clusterName).put("port", TestFleet.freePort())
      .put("members", "127.0.0.1:" + hubClusterPort)
      .put("config", Path.of("..", "cluster.xml").toAbsolutePath().normalize().toString());
    member = ClusterLauncher.start(new JsonObject().put("cluster", cluster), true)
      .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  /**
   * Registers a node that enrolls with {@code enrollmentToken} like a real one, checks the hub's signature on
   * every call, and answers with {@code ok} data (proved), or fails with {@code failCode} when it is > 0.
   */
  public void add(String nodeId, String enrollmentToken, JsonObject labels, double cpuPercent, int failCode) throws Exception {
    Vertx vertx = member.vertx();
    callsReceived.put(nodeId, new AtomicInteger());
    NodeTrust trust = NodeTrust.load(nodeId, java.nio.file.Files.createTempDirectory("sim-" + nodeId), enrollmentToken,
      ToolCatalog.load());
    trusts.put(nodeId, trust);
    await(vertx.eventBus().<ToolCall>consumer(Addresses.nodeCall(nodeId), msg -> {
      try {
        trust.admission().admit(trust.openCall(msg.body()));
      } catch (Exception e) {
        msg.fail(io.fleetbus.shared.bus.FailureCode.of(e).code, e.getMessage());
        return;
      }
      if (callsReceived.get(nodeId).incrementAndGet() == 1) {
        System.out.println("first call on " + nodeId);
      }
      if (seenCalls.putIfAbsent(msg.body().callId(), Boolean.TRUE) != null) {
        System.out.println("DUPLICATE call " + msg.body().callId() + " on " + nodeId);
      }
      Runnable answer = () -> {
        if (failCode > 0) {
          // failures proved like a real node's (an unproven bus failure is dropped by the hub)
          msg.reply(trust.prove(ToolResult.error(msg.body().callId(), nodeId,
            io.fleetbus.shared.bus.FailureCode.of(failCode), "simulated failure on " + nodeId, 1)),
            new io.vertx.core.eventbus.DeliveryOptions().addHeader(io.fleetbus.shared.bus.FleetReplies.PROVEN_FAILURE, "true"));
        } else {
          msg.reply(trust.prove(ToolResult.ok(msg.body().callId(), nodeId, new JsonObject().put("answeredBy", nodeId), 1)));
        }
      };
      if (answerDelayMs > 0) {
        vertx.setTimer(answerDelayMs, t -> answer.run());
      } else {
        answer.run();
      }
    }).completion());
    String instance = UUID.randomUUID().toString();
    NodeHello hello = new NodeHello(nodeId, instance,
      member.clusterManager().getHazelcastInstance().getCluster().getLocalMember().getUuid().toString(), "linux",
      "sudo", labels, "sim", List.of("get_agent_health", "run_command"), null);
    NodeTrust.Hello sent = trust.hello(hello);
    NodeRegistered reg = await(vertx.eventBus().<NodeRegistered>request(Addresses.HUB_REGISTER, sent.hello(),
      new DeliveryOptions().setSendTimeout(20_000))).body();
    trust.accept(sent, reg);
    instances.put(nodeId, instance);
    heartbeat(nodeId, cpuPercent);
    vertx.setPeriodic(reg.heartbeatIntervalMs(), t -> heartbeat(nodeId, load.getOrDefault(nodeId, cpuPercent)));
  }

  /** Publishes a heartbeat now with this CPU load (and keeps reporting it). */
  public void heartbeat(String nodeId, double cpuPercent) {
    load.put(nodeId, cpuPercent);
    member.vertx().eventBus().publish(Addresses.HEARTBEAT, trusts.get(nodeId).prove(new Heartbeat(nodeId, instances.get(nodeId),
      seq.incrementAndGet(), System.currentTimeMillis(), new Metrics(cpuPercent, 1000, 8000, 50_000, 100, 0.1, null), null)));
  }

  /** From now on every call is answered this much later (a slow tool). */
  public void answerAfter(long ms) {
    answerDelayMs = ms;
  }

  /**
   * Runs simulated nodes as a process of their own, so a test can kill them:
   * {@code SimulatedNodes <clusterName> <hubPort> <answerDelayMs> <nodeId>=<enrollmentToken>...}; prints
   * "simulated nodes ready".
   */
  public static void main(String[] args) throws Exception {
    SimulatedNodes sim = new SimulatedNodes(args[0], Integer.parseInt(args[1]));
    sim.answerAfter(Long.parseLong(args[2]));
    for (int i = 3; i < args.length; i++) {
      String[] idAndToken = args[i].split("=", 2);
      sim.add(idAndToken[0], idAndToken[1], new JsonObject().put("pool", "sim"), 10, 0);
    }
    System.out.println("simulated nodes ready");
  }

  public int callsReceived(String nodeId) {
    return callsReceived.get(nodeId).get();
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    try {
      member.vertx().close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("simulated nodes did not leave the cluster", e);
    }
  }
}
