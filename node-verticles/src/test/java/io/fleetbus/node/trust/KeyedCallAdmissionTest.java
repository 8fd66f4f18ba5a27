package io.fleetbus.node.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.DirectiveClaims;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, item 4, at the node: a call with an Idempotency-Key is journaled whatever its tier, so the key's second
 * call — under a new call id, through the other hub of a split — gets the first call's outcome under its own id, with
 * {@code data.sameAs} naming the call that ran, and the tool does not run again. With
 * {@code -Dfleetbus.fault.unjournaledKeys=true} (tier 1 not journaled, as before) the second call runs.
 */
class KeyedCallAdmissionTest {
  @TempDir
  Path dir;

  private static ToolCall read(String id, String key) {
    return new ToolCall(id, key, "alice", List.of("viewer"), "get_agent_health", new JsonObject(), "n1", null, 5000,
      false, "sig");
  }

  private static CallAdmission.Checked tier1(ToolCall call) {
    DirectiveClaims claims = DirectiveClaims.forCall(call, 1, System.currentTimeMillis(), 60_000);
    return new CallAdmission.Checked(claims, 1);
  }

  /** How many times the tool ran for two calls with one key (the first finishes before the second arrives). */
  private int runsOfTwoKeyedReads(CallAdmission admission, String key) throws Exception {
    int runs = 0;
    ToolCall first = read("c1-" + key, key);
    CallAdmission.Admission a1 = admission.admit(first, tier1(first));
    if (a1.earlier() == null) {
      runs++;
      admission.finish(first, a1, ToolResult.ok(first.callId(), "n1", new JsonObject().put("cpu", 7), 2));
    }
    ToolCall second = read("c2-" + key, key);
    CallAdmission.Admission a2 = admission.admit(second, tier1(second));
    if (a2.earlier() == null) {
      runs++;
    } else {
      assertEquals(second.callId(), a2.earlier().callId(), "answered under the second call's own id");
      assertEquals(first.callId(), a2.earlier().data().getString("sameAs"), "naming the call that ran");
      assertEquals(7, a2.earlier().data().getInteger("cpu"), "with its outcome");
    }
    return runs;
  }

  @Test
  void aKeyedReadRunsOnceAndItsKeysSecondCallAnswersTheFirst() throws Exception {
    try (CallJournal journal = CallJournal.open(dir)) {
      CallAdmission admission = new CallAdmission(null, journal, ToolCatalog.load());
      assertTrue(tier1(read("x", "k")).needsJournal(), "a keyed read is journaled");
      assertEquals(false, tier1(read("y", null)).needsJournal(), "an unkeyed read is not (no fsync)");
      assertEquals(1, runsOfTwoKeyedReads(admission, "k1"));
      try (FaultSwitches.Restore off = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.UNJOURNALED_KEYS))) {
        assertEquals(2, runsOfTwoKeyedReads(admission, "k2"), "with keys unjournaled the key's second call runs again");
      }
      assertNull(journal.status("c1-k2"));
    }
  }

  /** The key's second call while the first still runs: told to wait for it, then answered with its outcome. */
  @Test
  void aKeyedCallWhoseFirstStillRunsWaitsForItsOutcome() throws Exception {
    try (CallJournal journal = CallJournal.open(dir)) {
      CallAdmission admission = new CallAdmission(null, journal, ToolCatalog.load());
      ToolCall first = read("r1", "k-run");
      CallAdmission.Admission running = admission.admit(first, tier1(first));
      ToolCall second = read("r2", "k-run");
      assertEquals("r1", admission.admit(second, tier1(second)).waitFor(), "wait for the key's first call");
      admission.finish(first, running, ToolResult.ok("r1", "n1", new JsonObject().put("cpu", 3), 1));
      CallAdmission.Admission after = admission.admit(second, tier1(second));
      assertNull(after.waitFor());
      assertEquals("r1", after.earlier().data().getString("sameAs"));
    }
  }
}
