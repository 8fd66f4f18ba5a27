package io.fleetbus.node.agent;

import io.fleetbus.node.tools.CallControl;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The calls this node has received and not yet answered (their outcome journaled), by call id: the tool's
 * {@link CallControl} while it runs, and the hubs waiting to hear how the call ends. The only map of
 * calls in flight; confined to the agent verticle's event loop.
 */
public final class CallsInFlight {
  private static final class InFlight {
    private CallControl control;
    private boolean unfinished;
    private final List<Runnable> waiters = new ArrayList<>();
  }

  private final Map<String, InFlight> calls = new HashMap<>();

  /** The call was received: it counts as unfinished until {@link #ended}. */
  public void received(String callId) {
    calls.computeIfAbsent(callId, k -> new InFlight()).unfinished = true;
  }

  /** The call's tool runs with {@code control} (cancel reaches it) until {@link #toolDone}. */
  public void running(String callId, CallControl control) {
    calls.computeIfAbsent(callId, k -> new InFlight()).control = control;
  }

  /** The tool returned: the call can no longer be cancelled, its outcome is being journaled. */
  public void toolDone(String callId) {
    InFlight call = calls.get(callId);
    if (call != null) {
      call.control = null;
      if (!call.unfinished) {
        calls.remove(callId);
      }
    }
  }

  /** The running tool's control, or null when the call is not running here. */
  public CallControl control(String callId) {
    InFlight call = calls.get(callId);
    return call == null ? null : call.control;
  }

  public boolean unfinished(String callId) {
    InFlight call = calls.get(callId);
    return call != null && call.unfinished;
  }

  /** Runs {@code waiter} when the call ends; false (and nothing kept) when it is not unfinished. */
  public boolean whenEnded(String callId, Runnable waiter) {
    InFlight call = calls.get(callId);
    if (call == null || !call.unfinished) {
      return false;
    }
    call.waiters.add(waiter);
    return true;
  }

  /** The call has ended and its outcome is journaled: whoever waits to hear how it ended is told. */
  public void ended(String callId) {
    InFlight call = calls.get(callId);
    if (call == null) {
      return;
    }
    call.unfinished = false;
    if (call.control == null) {
      calls.remove(callId); // a duplicate refused while the first still runs keeps the running one cancellable
    }
    List<Runnable> waiting = List.copyOf(call.waiters);
    call.waiters.clear();
    waiting.forEach(Runnable::run);
  }

  public int size() {
    return calls.size();
  }
}
