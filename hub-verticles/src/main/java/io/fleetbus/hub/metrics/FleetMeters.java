package io.fleetbus.hub.metrics;

import io.fleetbus.hub.calls.CallEvents;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Fleet events as Prometheus meters: calls by tool and outcome, call latency, approvals pending, nodes
 * online/offline, heartbeats received/dropped. Labels are bounded: tool names come from the catalogue,
 * codes from FailureCode; never a node or call id. Fed from one thread (its verticle's).
 */
public final class FleetMeters {
  /** Latency buckets: a local OSHI read is milliseconds, a run_command may take minutes. */
  private static final Duration[] LATENCY_BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
    Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
    Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60),
    Duration.ofSeconds(300)};

  private final MeterRegistry registry;
  // Micrometer holds a function counter's source weakly: these fields keep the suppliers alive
  private final LongSupplier heartbeatsReceived;
  private final LongSupplier heartbeatsDropped;
  private final Set<String> pendingApprovals = new HashSet<>();
  private final Map<String, Boolean> nodeOnline = new HashMap<>();
  // the scrape reads gauges on another thread: it sees these numbers, never the collections above
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicInteger online = new AtomicInteger();
  private final AtomicInteger offline = new AtomicInteger();
  /** The call meters made so far, by their labels (tool, outcome, code) and by tool. */
  private final Map<String, Counter> calls = new HashMap<>();
  private final Map<String, Timer> durations = new HashMap<>();

  public FleetMeters(MeterRegistry registry, LongSupplier heartbeatsReceived, LongSupplier heartbeatsDropped) {
    this.registry = registry;
    this.heartbeatsReceived = heartbeatsReceived;
    this.heartbeatsDropped = heartbeatsDropped;
    Gauge.builder("fleetbus.approvals.pending", pending, AtomicInteger::get)
      .description("tier-3 calls waiting for a person").register(registry);
    Gauge.builder("fleetbus.nodes", online, AtomicInteger::get).tag("state", "online")
      .description("nodes this hub knows, by state").register(registry);
    Gauge.builder("fleetbus.nodes", offline, AtomicInteger::get).tag("state", "offline")
      .description("nodes this hub knows, by state").register(registry);
    FunctionCounter.builder("fleetbus.heartbeats", heartbeatsReceived, LongSupplier::getAsLong).tag("result", "received")
      .description("node heartbeats taken in, or dropped (unregistered node, stale process)").register(registry);
    FunctionCounter.builder("fleetbus.heartbeats", heartbeatsDropped, LongSupplier::getAsLong).tag("result", "dropped")
      .description("node heartbeats taken in, or dropped (unregistered node, stale process)").register(registry);
  }

  /** The registry's nodes when the hub starts (events only tell what changes after). */
  public void seedNodes(JsonArray nodes) {
    nodes.forEach(n -> nodeOnline.putIfAbsent(((JsonObject) n).getString("nodeId"), ((JsonObject) n).getBoolean("online", false)));
    countNodes();
  }

  /** Approvals already pending when the hub starts (restored from its database). */
  public void seedApprovals(JsonArray pendingNow) {
    pendingNow.forEach(a -> pendingApprovals.add(((JsonObject) a).getString("approvalId")));
    pending.set(pendingApprovals.size());
  }

  public void onEvent(JsonObject e) {
    switch (String.valueOf(e.getString("type"))) {
      case CallEvents.FINISHED -> callFinished(e);
      case "approval.requested" -> {
        pendingApprovals.add(e.getString("approvalId"));
        pending.set(pendingApprovals.size());
      }
      case "approval.decided" -> {
        pendingApprovals.remove(e.getString("approvalId"));
        pending.set(pendingApprovals.size());
      }
      case "node.online", "node.offline" -> nodeIs(e.getString("nodeId"), "node.online".equals(e.getString("type")));
      default -> {
        // other events carry nothing this hub counts
      }
    }
  }

  private void callFinished(JsonObject e) {
    String tool = e.getString("tool", "unknown");
    int code = e.getInteger("code", 500);
    String outcome = e.getString("outcome", code == 200 ? "ok" : "error");
    // each meter is built once and kept (the labels are bounded): building and registering one per call was a
    // visible share of the hub's CPU per call (issue 17)
    calls.computeIfAbsent(tool + '\u0000' + outcome + '\u0000' + code, k -> Counter.builder("fleetbus.calls")
      .description("finished calls by tool and outcome").tag("tool", tool).tag("outcome", outcome)
      .tag("code", Integer.toString(code)).register(registry)).increment();
    Long latency = e.getLong("latencyMs");
    if (latency != null) {
      durations.computeIfAbsent(tool, k -> Timer.builder("fleetbus.call.duration")
        .description("time from routing a call to its answer, as the hub sees it").tag("tool", tool)
        .serviceLevelObjectives(LATENCY_BUCKETS).register(registry)).record(latency, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * One node's flip, counted by what it changes: recounting every node per flip made a hello storm quadratic (10,000
   * nodes coming online: 10^8 steps, the hub's largest CPU share in the profiled scale run).
   */
  private void nodeIs(String nodeId, boolean up) {
    Boolean was = nodeOnline.put(nodeId, up);
    if (was != null && was == up) {
      return;
    }
    (up ? online : offline).incrementAndGet();
    if (was != null) {
      (was ? online : offline).decrementAndGet();
    }
  }

  private void countNodes() {
    int up = (int) nodeOnline.values().stream().filter(Boolean::booleanValue).count();
    online.set(up);
    offline.set(nodeOnline.size() - up);
  }
}
