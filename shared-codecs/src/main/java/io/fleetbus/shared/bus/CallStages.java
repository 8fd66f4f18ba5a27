package io.fleetbus.shared.bus;

import io.fleetbus.shared.fault.FaultSwitch;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a tool call's time goes (issue 17): monotonic stamps taken at fixed points of the call path, turned into
 * per-stage durations when the call's answer leaves the hub. Off unless the JVM runs with
 * {@code -Dfleetbus.stages=true} (the benchmark turns it on); off, every method is one static boolean check.
 * <p>
 * Hub and node stamp with {@link System#nanoTime()}, which on Linux is {@code CLOCK_MONOTONIC}: one clock for every
 * process of a machine, so the node's stamps (sent back in the reply header {@link #HEADER}) line up with the hub's
 * when both run on one host, as in the benchmark. Across machines the hop stages would be meaningless; the node's
 * own stages (admission, tool, proof) stay right.
 */
public final class CallStages {
  /** Reply header: the node's stamps for the call, in {@link Stage} order from {@link Stage#NODE_RECEIVED}. */
  public static final String HEADER = "fb-stages";
  public static final boolean ON = FaultSwitch.STAGES.on();
  private static final int SAMPLES = 16_384;

  /** The stamps, in the order a call passes them; a stage's time runs from the previous stamp taken to its own. */
  public enum Stage {
    HTTP_RECEIVED("—"),
    PREPARED("HTTP + auth"),
    VALIDATED("schema"),
    ROUTER_RECEIVED("approval"),
    SENT("routing + signing"),
    NODE_RECEIVED("hop out"),
    NODE_ADMITTED("node admission + verify"),
    TOOL_DONE("tool"),
    NODE_REPLIED("proof + journal"),
    ANSWER_RECEIVED("hop back"),
    ANSWER_CHECKED("answer open + proof"),
    LEDGER_RECEIVED("to the ledger"),
    AUDITED("audit commit"),
    RECORDED("record + to the API"),
    RESPONDED("response");

    public final String label;

    Stage(String label) {
      this.label = label;
    }
  }

  private static final Stage[] STAGES = Stage.values();
  private static final Map<String, long[]> OPEN = new ConcurrentHashMap<>();
  private static final long[][] DURATIONS = new long[STAGES.length][SAMPLES];
  private static final int[] COUNTS = new int[STAGES.length];

  private CallStages() {
  }

  /**
   * Opens a call's stamps once its arguments are checked: {@code receivedNanos} when the request arrived,
   * {@code authedNanos} when authentication was done and the call's preparation began.
   */
  public static void begin(String callId, long receivedNanos, long authedNanos) {
    if (!ON) {
      return;
    }
    long[] stamps = new long[STAGES.length];
    stamps[Stage.HTTP_RECEIVED.ordinal()] = receivedNanos;
    stamps[Stage.PREPARED.ordinal()] = authedNanos;
    stamps[Stage.VALIDATED.ordinal()] = System.nanoTime();
    OPEN.put(callId, stamps);
  }

  /** Stamps {@code stage} for a call begun in this JVM (a no-op for calls nobody began here). */
  public static void mark(String callId, Stage stage) {
    if (!ON || callId == null) {
      return;
    }
    long[] stamps = OPEN.get(callId);
    if (stamps != null) {
      stamps[stage.ordinal()] = System.nanoTime();
    }
  }

  /** A node's side: its stamps for one call, kept until {@link #nodeHeader} takes them. */
  public static void nodeMark(String callId, Stage stage) {
    if (!ON || callId == null) {
      return;
    }
    OPEN.computeIfAbsent(callId, id -> new long[STAGES.length])[stage.ordinal()] = System.nanoTime();
  }

  /** The node's stamps for the reply header (and forgets them); null when off or none were taken. */
  public static String nodeHeader(String callId) {
    if (!ON || callId == null) {
      return null;
    }
    long[] stamps = OPEN.remove(callId);
    if (stamps == null) {
      return null;
    }
    stamps[Stage.NODE_REPLIED.ordinal()] = System.nanoTime();
    StringBuilder header = new StringBuilder();
    for (int i = Stage.NODE_RECEIVED.ordinal(); i <= Stage.NODE_REPLIED.ordinal(); i++) {
      header.append(i == Stage.NODE_RECEIVED.ordinal() ? "" : ",").append(stamps[i]);
    }
    return header.toString();
  }

  /** The hub's side: takes in the node's stamps from its reply header. */
  public static void fromNode(String callId, String header) {
    if (!ON || header == null) {
      return;
    }
    long[] stamps = OPEN.get(callId);
    if (stamps == null) {
      return;
    }
    String[] parts = header.split(",");
    for (int i = 0; i < parts.length && Stage.NODE_RECEIVED.ordinal() + i < STAGES.length; i++) {
      stamps[Stage.NODE_RECEIVED.ordinal() + i] = Long.parseLong(parts[i]);
    }
  }

  /** The answer has left: the call's stage times join the samples. */
  public static void end(String callId) {
    if (!ON || callId == null) {
      return;
    }
    long[] stamps = OPEN.remove(callId);
    if (stamps == null) {
      return;
    }
    stamps[Stage.RESPONDED.ordinal()] = System.nanoTime();
    long previous = stamps[0];
    synchronized (DURATIONS) {
      for (int i = 1; i < STAGES.length; i++) {
        if (stamps[i] == 0) {
          continue;
        }
        DURATIONS[i][COUNTS[i]++ % SAMPLES] = stamps[i] - previous;
        previous = stamps[i];
      }
    }
  }

  /** Forgets the samples taken so far (the benchmark resets before its timed calls). */
  public static void reset() {
    synchronized (DURATIONS) {
      Arrays.fill(COUNTS, 0);
    }
  }

  /** Per stage: its label, sample count, p50 and p99 in ms, in call order. */
  public static JsonObject snapshot() {
    JsonArray stages = new JsonArray();
    synchronized (DURATIONS) {
      for (int i = 1; i < STAGES.length; i++) {
        int n = Math.min(COUNTS[i], SAMPLES);
        if (n == 0) {
          continue;
        }
        long[] sorted = Arrays.copyOf(DURATIONS[i], n);
        Arrays.sort(sorted);
        stages.add(new JsonObject().put("stage", STAGES[i].name().toLowerCase()).put("label", STAGES[i].label)
          .put("samples", n).put("p50Ms", sorted[n / 2] / 1e6).put("p99Ms", sorted[Math.min(n - 1, n * 99 / 100)] / 1e6));
      }
    }
    return new JsonObject().put("enabled", ON).put("stages", stages);
  }
}
