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
    private boolean journaled;
    private final List<Runnable> waiters = new ArrayList<>();
    private final List<Runnable> journalWaiters = new ArrayList<>();
  }

  private final Map<String, InFlight> calls = new HashMap<>();
  /** Hubs waiting for a call to be journaled that has not arrived yet (its status ask overtook it). */
  private final Map<String, List<Runnable>> awaiting = new HashMap<>();

  /** The call was received: it counts as unfinished until {@link #ended}. */
  public void received(String callId) {
    InFlight call = calls.computeIfAbsent(callId, k -> new InFlight());
    call.unfinished = true;
    List<Runnable> early = awaiting.remove(callId);
    if (early != null) {
      call.journalWaiters.addAll(early);
    }
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

  /** The call passed admission: journaled (or needing no journal), its tool about to run. */
  public void admitted(String callId) {
    InFlight call = calls.get(callId);
    if (call != null) {
      call.journaled = true;
      runJournalWaiters(call);
    }
  }

  /**
   * Runs {@code waiter} once the call is admitted (journaled) or ended, also when it has not arrived yet; false (nothing
   * kept) when it was admitted here already: then the journal says what it holds. Whoever waits for a call that may
   * never arrive gives up with {@link #forgetWaiters}.
   */
  public boolean whenJournaled(String callId, Runnable waiter) {
    InFlight call = calls.get(callId);
    if (call == null) {
      awaiting.computeIfAbsent(callId, k -> new ArrayList<>()).add(waiter);
      return true;
    }
    if (!call.unfinished || call.journaled) {
      return false;
    }
    call.journalWaiters.add(waiter);
    return true;
  }

  /** Drops the waiters for a call that never arrived. */
  public void forgetWaiters(String callId) {
    awaiting.remove(callId);
  }

  private static void runJournalWaiters(InFlight call) {
    List<Runnable> waiting = List.copyOf(call.journalWaiters);
    call.journalWaiters.clear();
    waiting.forEach(Runnable::run);
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
    runJournalWaiters(call);
  }

  public int size() {
    return calls.size();
  }
}
