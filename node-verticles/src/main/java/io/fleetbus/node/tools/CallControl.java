package io.fleetbus.node.tools;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.msg.StreamChunk;
import io.vertx.core.eventbus.EventBus;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running call's two channels back to the world: output streamed to the call's stream address
 * (when the caller asked for it) and cancellation (hooks a tool registers, e.g. killing its process
 * tree). Thread-safe: tools use it from worker threads, the agent cancels from its event loop.
 */
public final class CallControl {
  private static final Logger LOG = LoggerFactory.getLogger(CallControl.class);

  private final String callId;
  private final EventBus bus;
  private final AtomicLong seq = new AtomicLong();
  private final List<Runnable> cancelHooks = new CopyOnWriteArrayList<>();
  private volatile String cancelledBy;
  private volatile boolean outlivesCall;

  /** The headers a chunk travels with (the node's id and proof; none for a node not enrolled). */
  private final java.util.function.Function<StreamChunk, io.vertx.core.eventbus.DeliveryOptions> proof;

  private CallControl(String callId, EventBus bus,
                      java.util.function.Function<StreamChunk, io.vertx.core.eventbus.DeliveryOptions> proof) {
    this.callId = callId;
    this.bus = bus;
    this.proof = proof;
  }

  /** A call whose output goes only into its result. */
  public static CallControl detached(String callId) {
    return new CallControl(callId, null, c -> new io.vertx.core.eventbus.DeliveryOptions());
  }

  /** A call whose output is also sent, chunk by chunk, to {@code fleet.call.<callId>.stream}. */
  public static CallControl streaming(String callId, EventBus bus) {
    return new CallControl(callId, bus, c -> new io.vertx.core.eventbus.DeliveryOptions());
  }

  /** As above, each chunk proved by the node ({@code proof} gives the headers), so the hub relays it. */
  public static CallControl streaming(String callId, EventBus bus,
                                      java.util.function.Function<StreamChunk, io.vertx.core.eventbus.DeliveryOptions> proof) {
    return new CallControl(callId, bus, proof);
  }

  public String callId() {
    return callId;
  }

  public boolean isStreaming() {
    return bus != null;
  }

  /** Sends one chunk of output (stdout, stderr or progress) to whoever listens; dropped when nobody does. */
  public void emit(String stream, String data) {
    if (bus != null && data != null && !data.isEmpty()) {
      send(new StreamChunk(callId, seq.incrementAndGet(), stream, data, false));
    }
  }

  /**
   * For work that outlives its call (a job): the call's reply no longer ends the stream; the work
   * sends the last chunk itself with {@link #end()}.
   */
  public void keepOpenAfterCall() {
    outlivesCall = true;
  }

  /** The call is over: sends the last chunk unless work that outlives the call took the stream over. */
  public void finish() {
    if (!outlivesCall) {
      end();
    }
  }

  /** The last chunk: listeners may stop listening. */
  public void end() {
    if (bus != null) {
      send(new StreamChunk(callId, seq.incrementAndGet(), "end", "", true));
    }
  }

  private void send(StreamChunk chunk) {
    bus.send(Addresses.callStream(callId), chunk, proof.apply(chunk));
  }

  /** Runs {@code hook} when the call is cancelled (at once if it already was). */
  public void onCancel(Runnable hook) {
    cancelHooks.add(hook);
    if (cancelledBy != null && cancelHooks.remove(hook)) {
      runQuietly(hook);
    }
  }

  /** Marks the call cancelled and runs its hooks (blocking: call from a worker). False if already cancelled. */
  public boolean cancel(String by) {
    synchronized (this) {
      if (cancelledBy != null) {
        return false;
      }
      cancelledBy = by == null ? "unknown" : by;
    }
    for (Runnable hook : cancelHooks) {
      if (cancelHooks.remove(hook)) {
        runQuietly(hook);
      }
    }
    return true;
  }

  public boolean isCancelled() {
    return cancelledBy != null;
  }

  public String cancelledBy() {
    return cancelledBy;
  }

  private void runQuietly(Runnable hook) {
    try {
      hook.run();
    } catch (RuntimeException e) {
      LOG.warn("cancel hook failed [call: {}]", callId, e);
    }
  }
}
