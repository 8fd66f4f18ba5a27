package io.fleetbus.hub.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.boot.HubAssembly;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.edge.EdgePeer;
import io.fleetbus.shared.fault.FaultSwitches;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.NodeHello;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 35's must-show, in one JVM: a hub's edge endpoint (on a Vert.x of its own; a stand-in registry accepts edge-x's
 * hello) serves one proven link, edge-x, whose calls the test times, first quiet, then while 50 clients without a
 * credential attack the port from five addresses: 20 announce a 16-MiB frame and send 4 MiB of it, 20 dribble a hello
 * one byte every 300 ms (slowloris), 10 send garbage. With the limits on (the defaults; the
 * hello deadline 2 s here so the test takes seconds, not 30) three waves, each after a quiet run of its own (the box's
 * load drifts): every attacker is closed, the hub's heap grows by a few MiB at most and edge-x's calls keep their p99
 * (medians over the waves). With the limits off (16-MiB frames before a hello, no link caps, an hour to say hello) the same
 * attack makes the hub buffer ~80 MiB and keeps its connections. The figures are printed ("EdgePortAbuseTest ...").
 */
class EdgePortAbuseTest {
  private static final int ATTACKERS = 50;
  private static final int HUGE = 20;
  private static final int SLOW = 20;
  private static final int SENT_OF_HUGE = 4 << 20;
  private static final int CALLS = 300;
  /** Attack waves with the limits on, each after a quiet run of its own. */
  private static final int ROUNDS = 3;
  /** Heap the attack may add with the limits on: 50 links × one 64-KiB frame is 3.2 MiB; the rest is slack for noise. */
  private static final long BOUNDED_GROWTH = 24L << 20;
  /** With the limits off: 20 × 4 MiB buffered is 80 MiB; what the test requires to call the attack a success. */
  private static final long UNBOUNDED_GROWTH = 48L << 20;

  @TempDir
  Path keys;
  private Vertx hub;
  private Vertx clients;
  private final List<NetClient> held = new ArrayList<>();

  @BeforeEach
  void vertxes() {
    hub = Vertx.vertx();
    clients = Vertx.vertx();
    Codecs.register(hub);
    HubAssembly.codecs(hub);
    Codecs.register(clients);
    hub.eventBus().<NodeHello>localConsumer(Addresses.HUB_REGISTER, m -> m.reply(new JsonObject()
      .put("registered", m.body().nodeId())));
  }

  @AfterEach
  void close() throws Exception {
    clients.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    hub.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void withTheLimitsOnAttackersAreClosedHeapStaysBoundedAndProvenCallsKeepTheirPace() throws Exception {
    EdgeSettings on = new EdgeSettings("127.0.0.1", 0, 60, EdgePeer.Limits.DEFAULT, EdgeSettings.MAX_UNPROVEN_LINKS,
      EdgeSettings.MAX_UNPROVEN_LINKS_PER_ADDRESS, 2, null);
    Figures f = attack(on, "limits on", ROUNDS);
    assertEquals(ATTACKERS * ROUNDS, f.closed, "every attacker closed by the hub: " + f);
    assertTrue(f.heapGrowth < BOUNDED_GROWTH, "heap growth bounded: " + f);
    // what the design holds to on a shared 2-core box: each attacker costs the hub one TLS handshake (its CPU on worker
    // threads, not on the links' event loop) and at most a 64-KiB frame, for at most the hello deadline; the wave's
    // handshakes (both ends in this JVM) take a few hundred ms of CPU at once, which the calls timed then share. So 2x
    // of the quiet p99, or 20 ms more (a sub-millisecond p99 doubles with scheduling alone), as medians over the rounds
    assertTrue(f.ratio() <= 2.0 || f.abuseP99() <= f.quietP99() + 20.0, "proven calls keep their pace: " + f);
  }

  @Test
  void withTheLimitsOffTheSameAttackIsBufferedAndItsConnectionsStay() throws Exception {
    EdgeSettings off = new EdgeSettings("127.0.0.1", 0, 60, new EdgePeer.Limits(16 << 20, 5000, 16 << 20), 100_000,
      100_000, 3600, null);
    Figures f = attack(off, "limits off", 1);
    assertTrue(f.heapGrowth > UNBOUNDED_GROWTH, "the attack made the hub buffer its frames: " + f);
    // with the limits on every attacker is closed; off, attackers stay (all 40 huge-frame and slowloris ones on a quiet
    // box; a loaded one loses some to its own TLS handshake timeouts, so only "not all closed" is asserted)
    assertTrue(f.closed < ATTACKERS, "attackers stay open: " + f);
  }

  /**
   * Medians over the rounds: the quiet p99 and the p99 under attack of each round, and their ratio (each round's own
   * quiet run just before its attack, so a box whose load drifts compares like with like).
   */
  private record Figures(List<double[]> rounds, long heapGrowth, int closed) {
    double ratio() {
      return median(rounds.stream().mapToDouble(r -> r[1] / r[0]).toArray());
    }

    double quietP99() {
      return median(rounds.stream().mapToDouble(r -> r[0]).toArray());
    }

    double abuseP99() {
      return median(rounds.stream().mapToDouble(r -> r[1]).toArray());
    }

    @Override
    public String toString() {
      StringBuilder each = new StringBuilder();
      rounds.forEach(r -> each.append(String.format(" %.2f/%.2f", r[0], r[1])));
      return String.format("quiet p99 %.2f ms, under attack p99 %.2f ms (median ratio %.2f over %d rounds, quiet/attack"
        + " ms:%s), heap growth %.1f MiB after GC, %d of %d attackers closed", quietP99(), abuseP99(), ratio(),
        rounds.size(), each, heapGrowth / 1048576.0, closed, ATTACKERS * rounds.size());
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    return sorted.length % 2 == 1 ? sorted[sorted.length / 2]
      : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  }

  /**
   * {@code rounds} times: edge-x's calls timed quietly, then while a wave of {@link #ATTACKERS} attacks; the heap's
   * growth is taken once the first wave's heavy part is over.
   */
  private Figures attack(EdgeSettings settings, String label, int rounds) throws Exception {
    EdgeEndpointVerticle endpoint = new EdgeEndpointVerticle(settings, EdgeCertificate.loadOrCreate(keys, "hub-test"),
      "member-h", FaultSwitches.none());
    await(hub.deployVerticle(endpoint));
    await(provenLink(endpoint.actualPort()));
    timeCalls(1000); // warm-up: TLS, JIT (the first test of the JVM pays for class loading)
    long before = heapAfterGc();
    long growth = 0;
    int closedCount = 0;
    List<double[]> figures = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      double quiet = p99(timeCalls(CALLS));
      List<CompletableFuture<Boolean>> closed = new ArrayList<>();
      List<Future<?>> delivered = new ArrayList<>();
      for (int i = 0; i < ATTACKERS; i++) {
        Promise<Void> sent = Promise.promise();
        closed.add(attacker(endpoint.actualPort(), i, sent).toCompletionStage().toCompletableFuture());
        delivered.add(sent.future());
      }
      // calls while the attack runs, at least CALLS of them and until every huge frame was sent or cut
      Future<?> heavyPart = Future.join(delivered);
      List<Double> underAttack = new ArrayList<>();
      while (underAttack.size() < CALLS || !heavyPart.isComplete()) {
        underAttack.addAll(timeCalls(10));
      }
      if (round == 0) {
        growth = heapAfterGc() - before;
      }
      // the slowloris links outlive the hello deadline (2 s when on) by a little: then count who was closed (with the
      // limits off, 5 s on: the link's idle timeout, 60 s, would end the stopped huge frames later)
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.min(settings.helloWithinSeconds(), 2) + 3L);
      while (System.nanoTime() < deadline && !closed.stream().allMatch(CompletableFuture::isDone)) {
        underAttack.addAll(timeCalls(10));
      }
      closedCount += (int) closed.stream().filter(CompletableFuture::isDone).count();
      figures.add(new double[] {quiet, p99(underAttack)});
    }
    Figures f = new Figures(figures, growth, closedCount);
    System.out.println("EdgePortAbuseTest [" + label + "]: " + f);
    return f;
  }

  /** edge-x's link, proven by its hello; it answers every call the hub sends it. */
  private Future<EdgePeer> provenLink(int port) {
    Promise<EdgePeer> welcomed = Promise.promise();
    client(clients, "127.0.0.1").connect(port, "127.0.0.1").onFailure(welcomed::tryFail).onSuccess(socket -> {
      EdgePeer peer = new EdgePeer(clients, socket, "hub", EdgePeer.Limits.DEFAULT);
      peer.onMessage(in -> peer.reply(in.replyId(), new JsonObject().put("ok", true), null));
      peer.onWelcome(w -> welcomed.tryComplete(peer)).start();
    });
    return welcomed.future().compose(peer -> peer.request(Addresses.HUB_REGISTER, new NodeHello("edge-x", "i1",
      "member-h", "linux", "sudo", new JsonObject(), "0.1.0", List.of(), null, null), null, 5000).map(peer));
  }

  /** Latencies (ms) of {@code n} calls, one after the other, from the hub's bus across edge-x's link and back. */
  private List<Double> timeCalls(int n) throws Exception {
    List<Double> ms = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long t = System.nanoTime();
      await(hub.eventBus().request(Addresses.nodeCall("edge-x"), new JsonObject().put("i", i)));
      ms.add((System.nanoTime() - t) / 1e6);
    }
    return ms;
  }

  /**
   * Attacker {@code i} from 127.0.0.(10 + i % 5): completes when the hub closes its connection; {@code sent} when its
   * heavy part is over (a huge frame's 4 MiB sent, or the connection cut; at once for the others).
   */
  private Future<Boolean> attacker(int port, int i, Promise<Void> sent) {
    Promise<Boolean> closed = Promise.promise();
    client(clients, "127.0.0." + (10 + i % 5)).connect(port, "127.0.0.1").onFailure(err -> {
      sent.tryComplete();
      closed.tryComplete(true);
    }).onSuccess(socket -> {
      socket.closeHandler(v -> {
        sent.tryComplete();
        closed.tryComplete(true);
      });
      if (i < HUGE) {
        socket.write(Buffer.buffer().appendInt(16 << 20));
        hugeFrame(socket, 0, sent);
      } else if (i < HUGE + SLOW) {
        sent.tryComplete();
        socket.write(Buffer.buffer().appendInt(1000).appendString("{\"t\":\"s\",\"a\":\"fleet.hub.register\",\"b\":"));
        clients.setPeriodic(300, t -> socket.write(Buffer.buffer(" ")).onFailure(e -> clients.cancelTimer(t)));
      } else {
        sent.tryComplete();
        Random random = new Random(i);
        clients.setPeriodic(100, t -> {
          byte[] junk = new byte[1024];
          random.nextBytes(junk);
          socket.write(Buffer.buffer(junk)).onFailure(e -> clients.cancelTimer(t));
        });
      }
    });
    return closed.future();
  }

  /** The body of a 16-MiB frame, 64 KiB at a time (each once the last was written), until 4 MiB of it are sent. */
  private static void hugeFrame(NetSocket socket, int done, Promise<Void> sent) {
    if (done >= SENT_OF_HUGE) {
      sent.tryComplete();
      return;
    }
    socket.write(Buffer.buffer(new byte[64 << 10])).onComplete(ar -> {
      if (ar.failed()) {
        sent.tryComplete();
      } else {
        hugeFrame(socket, done + (64 << 10), sent);
      }
    });
  }

  private NetClient client(Vertx vertx, String from) {
    NetClient client = vertx.createNetClient(new NetClientOptions().setSsl(true).setTrustAll(true)
      .setHostnameVerificationAlgorithm("").setLocalAddress(from));
    held.add(client);
    return client;
  }

  private static double p99(List<Double> ms) {
    double[] sorted = ms.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return sorted[(int) Math.ceil(sorted.length * 0.99) - 1];
  }

  private static long heapAfterGc() {
    System.gc();
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
