package io.fleetbus.node.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.tools.CallControl;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one map of calls in flight: cancel reaches a running tool, hubs waiting on a call hear when it ends. */
class CallsInFlightTest {

  @Test
  void aCallIsCancellableOnlyWhileItsToolRunsAndWaitersHearItsEnd() {
    CallsInFlight calls = new CallsInFlight();
    List<String> told = new ArrayList<>();
    assertFalse(calls.whenEnded("c1", () -> told.add("early")), "nothing to wait for before the call arrives");
    calls.received("c1");
    assertTrue(calls.unfinished("c1"));
    assertNull(calls.control("c1"), "admitted, not running yet: nothing to cancel");
    CallControl control = CallControl.detached("c1");
    calls.running("c1", control);
    assertSame(control, calls.control("c1"));
    assertTrue(calls.whenEnded("c1", () -> told.add("hub-a")));
    calls.toolDone("c1");
    assertNull(calls.control("c1"), "the tool returned: its outcome is being journaled, cancel comes too late");
    assertTrue(calls.unfinished("c1"));
    assertEquals(List.of(), told);
    calls.ended("c1");
    assertEquals(List.of("hub-a"), told);
    assertFalse(calls.unfinished("c1"));
    assertEquals(0, calls.size(), "nothing is kept once a call ended");
  }

  @Test
  void aRefusedDuplicateEndsButTheRunningCallStaysCancellable() {
    CallsInFlight calls = new CallsInFlight();
    CallControl control = CallControl.detached("c1");
    calls.received("c1");
    calls.running("c1", control);
    calls.received("c1"); // the same call again (a retry), refused by admission
    calls.ended("c1");
    assertSame(control, calls.control("c1"), "the first delivery still runs: cancel must reach it");
    calls.toolDone("c1");
    assertEquals(0, calls.size());
  }
}
