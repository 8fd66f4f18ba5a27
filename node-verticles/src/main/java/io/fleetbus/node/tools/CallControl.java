package io.fleetbus.node.tools;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.msg.StreamChunk;
import io.fleetbus.shared.trust.CallSeal;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
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

  /** A chunk as it goes out: sealed, with the node's id and proof (plain for a node not enrolled). */
  private final Function<StreamChunk, CallSeal.Outgoing> proof;

  private CallControl(String callId, EventBus bus, Function<StreamChunk, CallSeal.Outgoing> proof) {
    this.callId = callId;
    this.bus = bus;
    this.proof = proof;
  }

  /** A call whose output goes only into its result. */
  public static CallControl detached(String callId) {
    return new CallControl(callId, null, CallControl::plain);
  }

  /** A call whose output is also sent, chunk by chunk, to {@code fleet.call.<callId>.stream}. */
  public static CallControl streaming(String callId, EventBus bus) {
    return new CallControl(callId, bus, CallControl::plain);
  }

  /** As above, each chunk sealed and proved by the node ({@code proof}), so only the hub reads and relays it. */
  public static CallControl streaming(String callId, EventBus bus, Function<StreamChunk, CallSeal.Outgoing> proof) {
    return new CallControl(callId, bus, proof);
  }

  private static CallSeal.Outgoing plain(StreamChunk chunk) {
    return new CallSeal.Outgoing(chunk, new DeliveryOptions());
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
    end("");
  }

  /**
   * The last chunk, carrying {@code data} (a job's final state, for a caller who follows it to its end). Its sequence
   * number is one past the last output chunk's, so a listener knows how many to wait for.
   */
  public void end(String data) {
    if (bus != null) {
      send(new StreamChunk(callId, seq.incrementAndGet(), "end", data == null ? "" : data, true));
    }
  }

  private void send(StreamChunk chunk) {
    CallSeal.Outgoing out = proof.apply(chunk);
    bus.send(Addresses.callStream(callId), out.chunk(), out.options());
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
