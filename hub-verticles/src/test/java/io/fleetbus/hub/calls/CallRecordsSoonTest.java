package io.fleetbus.hub.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.hub.cluster.SharedMap;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.SealedBox;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A short read's running record is kept on its hub at once but never shared: the fleet's map gets one write for it,
 * the finished record. A read still running when its delay is over is shared as running first, as every call was.
 */
@Timeout(60)
class CallRecordsSoonTest {
  private static final byte[] STORE_KEY = Digests.randomBytes(32);
  private static ClusterLauncher.Member hub;
  private static FleetState fleet;

  @BeforeAll
  static void oneHub() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String config = Path.of("..", "cluster.xml").toAbsolutePath().normalize().toString();
    hub = await(ClusterLauncher.start(new JsonObject().put("cluster", new JsonObject()
      .put("name", "fleetbus-soon-" + UUID.randomUUID()).put("port", port).put("members", "127.0.0.1:" + port)
      .put("config", config)), false));
    fleet = new FleetState(hub.clusterManager().getHazelcastInstance(), STORE_KEY);
  }

  @AfterAll
  static void stop() throws Exception {
    await(hub.vertx().close());
  }

  private static CallRecord running(String callId) {
    return CallRecord.started(call(callId, "get_agent_health"), 1, null, System.currentTimeMillis(), "hub-a");
  }

  private static ToolCall call(String callId, String tool) {
    return ToolCall.fromJson(new JsonObject().put("callId", callId).put("principal", "alice").put("nodeId", "n1")
      .put("tool", tool));
  }

  @Test
  void aShortReadIsSharedOnceFinishedALongOneWhileRunning() throws Exception {
    Map<String, List<String>> writes = new ConcurrentHashMap<>();
    String shortCall = "short-" + UUID.randomUUID();
    String longCall = "long-" + UUID.randomUUID();
    CompletableFuture<Void> longShared = new CompletableFuture<>();
    for (String map : List.of(FleetState.CALLS, FleetState.OPEN_CALLS)) {
      IMap<String, String> raw = hub.clusterManager().getHazelcastInstance().getMap(map);
      raw.addEntryListener((EntryAddedListener<String, String>) e -> seen(map, e, writes, longCall, longShared), true);
      raw.addEntryListener((EntryUpdatedListener<String, String>) e -> seen(map, e, writes, longCall, longShared), true);
    }
    Context ctx = hub.vertx().getOrCreateContext();
    CallRecords records = records(ctx);
    CompletableFuture<Boolean> knownAtOnce = new CompletableFuture<>();
    ctx.runOnContext(v -> {
      CallRecord shortRun = running(shortCall);
      records.putSoon(shortRun, 300);
      records.putSoon(running(longCall), 300);
      knownAtOnce.complete(records.taken(shortCall) && records.taken(longCall));
      records.put(shortRun.finished(ToolResult.ok(shortCall, "n1", new JsonObject(), 1)));
    });
    assertTrue(knownAtOnce.get(10, TimeUnit.SECONDS), "its hub knows the calls at once");
    // the long read is shared once its delay is over (the short one was due first: it would have gone with it)
    longShared.get(10, TimeUnit.SECONDS);
    assertEquals(List.of(ToolResult.OK), writes.get(shortCall), "a short read: its finished record only");
    assertEquals(List.of(CallRecord.RUNNING), writes.get(longCall), "a long read: shared while it runs");
  }

  private static CallRecords records(Context ctx) {
    return new CallRecords(ctx, fleet.map(FleetState.CALLS, FleetState.DAY_MS),
      fleet.map(FleetState.LARGE_CALLS, FleetState.DAY_MS), ClusterLauncher.SMALL_CALL_RECORD_CHARS,
      fleet.map(FleetState.OPEN_CALLS, FleetState.DAY_MS));
  }

  /**
   * A call not finished is in the map that is never evicted, so a flood of finished calls cannot push it out before a
   * hub taking over looks for it there; finishing moves it to the budgeted map, and a hub taking over reads the open
   * calls only.
   */
  @Test
  void anUnfinishedCallIsKeptApartFromTheEvictedFinishedOnes() throws Exception {
    com.hazelcast.core.HazelcastInstance hz = hub.clusterManager().getHazelcastInstance();
    assertEquals(com.hazelcast.config.EvictionPolicy.NONE,
      hz.getConfig().findMapConfig(FleetState.OPEN_CALLS).getEvictionConfig().getEvictionPolicy());
    assertEquals(com.hazelcast.config.MaxSizePolicy.PER_PARTITION,
      hz.getConfig().findMapConfig(FleetState.CALLS).getEvictionConfig().getMaxSizePolicy());
    assertEquals(com.hazelcast.config.MaxSizePolicy.USED_HEAP_SIZE,
      hz.getConfig().findMapConfig(FleetState.LARGE_CALLS).getEvictionConfig().getMaxSizePolicy());
    IMap<String, String> finished = hz.getMap(FleetState.CALLS);
    IMap<String, String> open = hz.getMap(FleetState.OPEN_CALLS);
    String parked = "parked-" + UUID.randomUUID();
    Context ctx = hub.vertx().getOrCreateContext();
    CallRecords records = records(ctx);
    CallRecord pending = CallRecord.pending(call(parked, "run_command"), 3, "appr-1", System.currentTimeMillis());
    ctx.runOnContext(v -> records.put(pending));
    awaitTrue(() -> open.containsKey(parked));
    assertFalse(finished.containsKey(parked));

    CallRecord running = pending.running("hub-x");
    ctx.runOnContext(v -> records.put(running));
    CompletableFuture<List<String>> takeover = new CompletableFuture<>();
    awaitTrue(() -> "hub-x".equals(CallRecord.fromStoredJson(opened(FleetState.OPEN_CALLS, parked, open.get(parked)))
      .hub()));
    ctx.runOnContext(v -> records.unfinishedOf("hub-x").onComplete(ar -> takeover.complete(ar.succeeded()
      ? ar.result().stream().map(SharedMap.Entry::key).toList() : List.of("failed: " + ar.cause()))));
    assertEquals(List.of(parked), takeover.get(10, TimeUnit.SECONDS));

    ctx.runOnContext(v -> records.put(running.finished(ToolResult.ok(parked, "n1", new JsonObject(), 1))));
    awaitTrue(() -> finished.containsKey(parked) && !open.containsKey(parked));
    CompletableFuture<String> found = new CompletableFuture<>();
    CallRecords another = records(ctx);
    ctx.runOnContext(v -> another.find(parked).onComplete(ar -> found.complete(ar.succeeded() && ar.result() != null
      ? ar.result().status() : "not found")));
    assertEquals(ToolResult.OK, found.get(10, TimeUnit.SECONDS), "another hub finds the finished record");
  }

  /**
   * A finished record whose stored form is small goes to the map bounded by a count per partition; one with a large
   * result to the heap-budgeted map (a count would not bound it), where another hub finds it; a record rewritten larger
   * leaves the small map, so the older one is never read instead.
   */
  @Test
  void aLargeResultGoesToTheHeapBudgetedMapAndIsFoundThere() throws Exception {
    com.hazelcast.core.HazelcastInstance hz = hub.clusterManager().getHazelcastInstance();
    IMap<String, String> small = hz.getMap(FleetState.CALLS);
    IMap<String, String> large = hz.getMap(FleetState.LARGE_CALLS);
    String smallCall = "small-" + UUID.randomUUID();
    String bigCall = "big-" + UUID.randomUUID();
    Context ctx = hub.vertx().getOrCreateContext();
    CallRecords records = records(ctx);
    JsonObject big = new JsonObject().put("content", "x".repeat(ClusterLauncher.SMALL_CALL_RECORD_CHARS));
    ctx.runOnContext(v -> {
      records.put(running(smallCall).finished(ToolResult.ok(smallCall, "n1", new JsonObject(), 1)));
      records.put(running(bigCall).finished(ToolResult.ok(bigCall, "n1", new JsonObject(), 1)));
    });
    awaitTrue(() -> small.containsKey(smallCall) && small.containsKey(bigCall));
    ctx.runOnContext(v -> records.put(running(bigCall).finished(ToolResult.ok(bigCall, "n1", big, 1))));
    awaitTrue(() -> large.containsKey(bigCall) && !small.containsKey(bigCall));
    assertFalse(large.containsKey(smallCall));
    CompletableFuture<Integer> found = new CompletableFuture<>();
    CallRecords another = records(ctx);
    ctx.runOnContext(v -> another.find(bigCall).onComplete(ar -> found.complete(ar.succeeded() && ar.result() != null
      ? ar.result().result().data().getString("content").length() : -1)));
    assertEquals(ClusterLauncher.SMALL_CALL_RECORD_CHARS, found.get(10, TimeUnit.SECONDS),
      "another hub finds the large record whole");
  }

  /**
   * Issue 34: a hub holding a call pending approval that another hub approved and finished while a split hid its updates
   * (a merge tells no listener) reads the end from the fleet's map when asked, instead of {@code pending_approval}
   * forever (PartitionTest saw that a minute after the heal).
   */
  @Test
  void aCallPendingHereReadsTheEndAnotherHubSharedUnheard() throws Exception {
    String id = "decided-elsewhere-" + UUID.randomUUID();
    Context ctx = hub.vertx().getOrCreateContext();
    CallRecords here = records(ctx);
    CallRecords there = records(ctx);
    CallRecord pending = CallRecord.pending(call(id, "run_command"), 3, "appr-2", System.currentTimeMillis());
    ctx.runOnContext(v -> {
      here.keep(pending);
      there.put(pending.running("hub-b").finished(ToolResult.ok(id, "n1", new JsonObject(), 1)));
    });
    IMap<String, String> finished = hub.clusterManager().getHazelcastInstance().getMap(FleetState.CALLS);
    awaitTrue(() -> finished.containsKey(id));
    CompletableFuture<String> found = new CompletableFuture<>();
    ctx.runOnContext(v -> here.find(id).onComplete(ar -> found.complete(ar.succeeded() && ar.result() != null
      ? ar.result().status() : "not found")));
    assertEquals(ToolResult.OK, found.get(10, TimeUnit.SECONDS), "the end another hub shared, not pending_approval");
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition) throws Exception {
    CompletableFuture<Void> met = new CompletableFuture<>();
    long timer = hub.vertx().setPeriodic(10, t -> {
      if (condition.getAsBoolean()) {
        met.complete(null);
      }
    });
    try {
      met.get(10, TimeUnit.SECONDS);
    } finally {
      hub.vertx().cancelTimer(timer);
    }
  }

  /** Notes every write to the fleet's call maps, by call: the status it wrote. */
  private static void seen(String map, EntryEvent<String, String> e, Map<String, List<String>> writes, String last,
                           CompletableFuture<Void> lastSeen) {
    String status = opened(map, e.getKey(), e.getValue()).getString("status");
    writes.computeIfAbsent(e.getKey(), k -> new CopyOnWriteArrayList<>()).add(status);
    if (e.getKey().equals(last)) {
      lastSeen.complete(null);
    }
  }

  /** A stored shared entry opened as SharedMap stores it: {@code <version>.<box sealed for key#version>}. */
  private static JsonObject opened(String map, String key, String stored) {
    int dot = stored.indexOf('.');
    return SealedBox.open(STORE_KEY, "shared:" + map, key + "#" + stored.substring(0, dot), stored.substring(dot + 1));
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
