package io.fleetbus.bench.sim;

import io.fleetbus.bench.http.HubClient;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetReplies;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.edge.EdgePeer;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Many simulated nodes in one cluster member. Each enrolls like a real node ({@link NodeEnrollment}) and
 * then publishes a real-shaped, proved heartbeat once per interval; the nodes are spread evenly over the
 * interval (one bucket per 10 ms tick). Nodes added with consumers also answer get_system_info on their
 * own {@code fleet.node.<id>.call} address, after checking the hub's signature (as a node does), with a proved result. Commands arrive as text lines (see {@link NodeSimulatorMain}).
 */
final class SimulatedFleet extends VerticleBase {
  private static final long TICK_MS = 10;
  /** Nodes joining at once: token requests share {@link #HTTP_CONNECTIONS} keep-alive connections. */
  private static final int JOINS_IN_FLIGHT = NodeSimulatorMain.JOINS_IN_FLIGHT;
  private static final int HTTP_CONNECTIONS = 16;

  private final String memberId;
  private final int hubPort;
  private final String hubToken;
  private final Path dataRoot;
  private HubClient hub;
  private NodeEnrollment enrollment;
  private final Map<String, SimulatedNode> nodes = new HashMap<>();
  private List<List<SimulatedNode>> buckets;
  private int scheduled;
  private long intervalMs;
  private long cycleStart;
  private int nextBucket;
  private long published;
  /** Held while the simulator runs: Vert.x closes a collected client with its connections. */
  private NetClient edgeClient;

  SimulatedFleet(String memberId, int hubPort, String hubToken, Path dataRoot) {
    this.memberId = memberId;
    this.hubPort = hubPort;
    this.hubToken = hubToken;
    this.dataRoot = dataRoot;
  }

  @Override
  public Future<?> start() {
    hub = new HubClient(vertx, hubPort, hubToken, HTTP_CONNECTIONS);
    enrollment = new NodeEnrollment(vertx, hub, dataRoot, ToolCatalog.load(), memberId);
    vertx.setPeriodic(TICK_MS, t -> beatDue());
    return Future.succeededFuture();
  }

  /** Runs one command line on this verticle's context (callable from any thread). */
  void execute(String line) {
    context.runOnContext(v -> {
      String[] w = line.trim().split("\\s+");
      switch (w[0]) {
        case "add" -> add(Integer.parseInt(w[1]), w[2], Boolean.parseBoolean(w[3]), w.length > 4 ? w[4] : null);
        case "silence" -> silence(w[1]);
        case "leave" -> leave(w[1]);
        case "rehello" -> rehello();
        default -> say("unknown command: " + line);
      }
    });
  }

  /** @param edge {@code host:port} of a hub's edge endpoint: each node links there (TLS) instead of using the cluster */
  private void add(int count, String prefix, boolean answersCalls, String edge) {
    long t0 = System.nanoTime();
    Deque<SimulatedNode> queue = new ArrayDeque<>();
    int first = nodes.size();
    for (int i = 1; i <= count; i++) {
      SimulatedNode node = new SimulatedNode(String.format("%s-%05d", prefix, first + i), first + i);
      nodes.put(node.nodeId, node);
      queue.add(node);
    }
    int[] failed = {0};
    List<Future<Void>> workers = new ArrayList<>();
    for (int i = 0; i < Math.min(JOINS_IN_FLIGHT, count); i++) {
      workers.add(drain(queue, answersCalls, edge, failed));
    }
    Future.join(workers).onComplete(ar -> say("added [count: " + count + ", total: " + nodes.size() + ", failed: "
      + failed[0] + ", ms: " + (System.nanoTime() - t0) / 1_000_000 + "]"));
  }

  /** One join lane: enrolls nodes from the queue one after another. */
  private Future<Void> drain(Deque<SimulatedNode> queue, boolean answersCalls, String edge, int[] failed) {
    SimulatedNode node = queue.poll();
    if (node == null) {
      return Future.succeededFuture();
    }
    Future<Void> ready = edge == null && answersCalls
      ? vertx.eventBus().<ToolCall>consumer(Addresses.nodeCall(node.nodeId), msg -> answer(node, msg)).completion()
      : Future.succeededFuture();
    Promise<Void> lane = Promise.promise();
    // an edge node links once its trust is loaded, just before its hello (as a real edge node does), and again
    // before a hello retried after its link was lost
    ready.compose(v -> enrollment.enroll(node, answersCalls, () -> edge == null || node.link != null && node.link.isOpen()
        ? Future.succeededFuture() : link(node, edge)))
      .onSuccess(reg -> schedule(node, reg.heartbeatIntervalMs()))
      .onFailure(err -> {
        failed[0]++;
        say("enrollment failed [node: " + node.nodeId + ", reason: " + err.getMessage() + "]");
      })
      .onComplete(ar -> drain(queue, answersCalls, edge, failed).onComplete(lane));
    return lane.future();
  }

  /** An edge node's link: TLS to the endpoint (the bench trusts the hub it started), welcomed before the hello. */
  private Future<Void> link(SimulatedNode node, String endpoint) {
    if (edgeClient == null) {
      edgeClient = vertx.createNetClient(new NetClientOptions().setSsl(true).setTrustAll(true)
        .setHostnameVerificationAlgorithm(""));
    }
    int colon = endpoint.lastIndexOf(':');
    Promise<Void> welcomed = Promise.promise();
    return edgeClient.connect(Integer.parseInt(endpoint.substring(colon + 1)), endpoint.substring(0, colon))
      .compose(socket -> {
        node.link = new EdgePeer(vertx, socket, "hub", EdgePeer.Limits.DEFAULT).onWelcome(w -> {
          node.linkMember = w.getString("member");
          welcomed.tryComplete();
        }).start();
        node.link.closed().onSuccess(reason -> welcomed.tryFail("link closed: " + reason));
        return welcomed.future();
      });
  }

  private void answer(SimulatedNode node, Message<ToolCall> msg) {
    ToolCall call = msg.body();
    if (!"get_system_info".equals(call.tool())) {
      msg.fail(FailureCode.NOT_FOUND.code, "simulated node " + node.nodeId + " serves only get_system_info");
      return;
    }
    // the node's own gate: the hub's signature, freshness and replay checks, on a worker like a real node
    vertx.executeBlocking(() -> {
      node.trust.admit(call, node.instanceId);
      return call;
    }, false).onComplete(admitted -> {
      if (admitted.failed()) {
        FleetReplies.fail(msg, admitted.cause());
        return;
      }
      JsonObject data = FakeSystemInfo.systemInfo(node.nodeId, SimulatedNode.AGENT_VERSION);
      msg.reply(node.trust.prove(ToolResult.ok(call.callId(), node.nodeId, data, 0)));
    });
  }

  /** Puts a registered node in the next bucket round-robin, so N nodes spread evenly over the interval. */
  private void schedule(SimulatedNode node, long interval) {
    if (buckets == null) {
      intervalMs = interval;
      int count = (int) Math.max(1, interval / TICK_MS);
      buckets = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        buckets.add(new ArrayList<>());
      }
      cycleStart = System.currentTimeMillis();
    }
    buckets.get(scheduled++ % buckets.size()).add(node);
  }

  private void beatDue() {
    if (buckets == null) {
      return;
    }
    long now = System.currentTimeMillis();
    // catch up on every bucket whose time has come, so a late timer never skips nodes
    while (cycleStart + nextBucket * TICK_MS <= now) {
      buckets.get(nextBucket).forEach(this::beat);
      if (++nextBucket == buckets.size()) {
        nextBucket = 0;
        cycleStart += intervalMs;
        say("cycle [published: " + published + ", at: " + System.currentTimeMillis() + "]");
      }
    }
  }

  private void beat(SimulatedNode node) {
    if (node.silenced) {
      return;
    }
    var hb = node.nextHeartbeat();
    if (node.link != null) {
      node.link.publish(Addresses.HEARTBEAT, hb, null);
    } else {
      vertx.eventBus().publish(Addresses.HEARTBEAT, hb);
    }
    published++;
    if (node.silenceAfterNextBeat) {
      node.silenced = true;
      say("silenced [node: " + node.nodeId + ", lastBeatAt: " + hb.sentAt() + "]");
    }
  }

  private void silence(String nodeId) {
    SimulatedNode node = nodes.get(nodeId);
    if (node == null) {
      say("unknown node: " + nodeId);
      return;
    }
    node.silenceAfterNextBeat = true;
  }

  /**
   * The hello storm: every enrolled cluster node says hello again, all at once (as each real node does when a hub
   * restarts or joins: HelloLoop's new-hub hello), each answer checked with the node's proof; prints when all were
   * answered.
   */
  private void rehello() {
    long t0 = System.nanoTime();
    List<Future<?>> hellos = new ArrayList<>();
    nodes.values().forEach(node -> {
      if (node.trust != null && node.link == null) {
        hellos.add(enrollment.helloAgain(node));
      }
    });
    Future.join(hellos).onComplete(ar -> say("rehello [count: " + hellos.size() + ", failed: "
      + hellos.stream().filter(Future::failed).count() + ", ms: " + (System.nanoTime() - t0) / 1_000_000 + "]"));
  }

  /** An edge node stops as a real one does: its proven goodbye over its link, then the link closes. */
  private void leave(String nodeId) {
    SimulatedNode node = nodes.get(nodeId);
    if (node == null || node.link == null) {
      say("unknown edge node: " + nodeId);
      return;
    }
    node.silenced = true;
    long at = System.currentTimeMillis();
    node.link.request(Addresses.HUB_GOODBYE, node.trust.goodbye(node.instanceId),
        io.vertx.core.MultiMap.caseInsensitiveMultiMap(), 10_000)
      .onComplete(ar -> {
        node.link.close("node " + nodeId + " left");
        say("left [node: " + nodeId + ", at: " + at + (ar.failed() ? ", failed: " + ar.cause().getMessage() : "") + "]");
      });
  }

  @Override
  public Future<?> stop() {
    hub.close();
    return Future.succeededFuture();
  }

  private static void say(String line) {
    System.out.println(line);
  }
}
