package io.fleetbus.node.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real file, reopened as a restarted node would: a call that changes things runs once. */
class CallJournalTest {
  @TempDir
  Path dir;

  private static ToolCall call(String id, String idem, String command) {
    return new ToolCall(id, idem, "alice", List.of("admin"), "run_command", new JsonObject().put("command", command),
      "n1", null, 5000, false, "sig");
  }

  @Test
  void secondDeliveryGets409WhileRunningThenTheFirstResult() throws Exception {
    try (CallJournal journal = CallJournal.open(dir)) {
      assertEquals(CallJournal.Kind.FRESH, journal.begin(call("c1", null, "echo a"), "h1").kind());
      assertEquals(CallJournal.Kind.RUNNING, journal.begin(call("c1", null, "echo a"), "h1").kind());
      journal.finish("c1", ToolResult.ok("c1", "n1", new JsonObject().put("stdout", "a\n"), 3));
      CallJournal.Outcome again = journal.begin(call("c1", null, "echo a"), "h1");
      assertEquals(CallJournal.Kind.DONE, again.kind());
      assertEquals("a\n", again.result().getJsonObject("data").getString("stdout"));
    }
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(CallJournal.FILE))));
  }

  @Test
  void theMemorySurvivesARestart() throws Exception {
    try (CallJournal journal = CallJournal.open(dir)) {
      journal.begin(call("done", null, "echo a"), "h1");
      journal.finish("done", ToolResult.ok("done", "n1", new JsonObject().put("x", 1), 1));
      journal.begin(call("crashed", null, "echo b"), "h2");
    }
    try (CallJournal reopened = CallJournal.open(dir)) {
      assertEquals(CallJournal.Kind.DONE, reopened.begin(call("done", null, "echo a"), "h1").kind());
      assertEquals(1, reopened.begin(call("done", null, "echo a"), "h1").result().getJsonObject("data").getInteger("x"));
      assertEquals(CallJournal.Kind.OUTCOME_UNKNOWN, reopened.begin(call("crashed", null, "echo b"), "h2").kind(),
        "a call that was running when the node died is never run again");
    }
  }

  @Test
  void idempotencyKeyAnswersARetryWithANewCallId() throws Exception {
    try (CallJournal journal = CallJournal.open(dir)) {
      journal.begin(call("c1", "key-1", "echo a"), "h1");
      journal.finish("c1", ToolResult.ok("c1", "n1", new JsonObject().put("stdout", "a\n"), 3));
      CallJournal.Outcome retry = journal.begin(call("c2", "key-1", "echo a"), "h1");
      assertEquals(CallJournal.Kind.DONE, retry.kind());
      assertEquals("c1", retry.firstCallId());
      assertEquals(CallJournal.Kind.KEY_REUSED, journal.begin(call("c3", "key-1", "echo other"), "h9").kind());
      assertEquals(CallJournal.Kind.FRESH, journal.begin(call("c4", "key-2", "echo a"), "h1").kind());
    }
  }

  private static JsonObject decision(String what, String hub) {
    return new JsonObject().put("decision", what).put("by", "bob").put("hub", hub).put("at", 1_700_000_000_000L);
  }

  /** Issue 34: the first decision that reaches the node wins — a refusal journaled first refuses the call for good. */
  @Test
  void aRefusalJournaledFirstRefusesTheCallEvenAfterARestart() throws Exception {
    try (CallJournal journal = CallJournal.open(dir)) {
      assertNull(journal.refuse("c1", decision("denied", "hub-b")), "the refusal is the journal's word now");
      CallJournal.Outcome delivered = journal.begin(call("c1", null, "echo a"), "h1");
      assertEquals(CallJournal.Kind.REFUSED, delivered.kind(), "the approved call from the other side never runs");
      assertEquals("hub-b", delivered.result().getString("hub"));
      assertEquals("refused", journal.refuse("c1", decision("cancelled", "hub-a")).getString("state"),
        "a second decision gets the first one");
    }
    try (CallJournal reopened = CallJournal.open(dir)) {
      assertEquals(CallJournal.Kind.REFUSED, reopened.begin(call("c1", null, "echo a"), "h1").kind());
      assertEquals("denied", reopened.status("c1").getJsonObject("refusal").getString("decision"));
    }
  }

  @Test
  void aCallDeliveredFirstCannotBeRefusedAfter() throws Exception {
    try (CallJournal journal = CallJournal.open(dir)) {
      journal.begin(call("c1", null, "echo a"), "h1");
      assertEquals("running", journal.refuse("c1", decision("denied", "hub-b")).getString("state"));
      journal.finish("c1", ToolResult.ok("c1", "n1", new JsonObject(), 1));
      assertEquals("done", journal.refuse("c1", decision("denied", "hub-b")).getString("state"));
      assertEquals(CallJournal.Kind.DONE, journal.begin(call("c1", null, "echo a"), "h1").kind());
    }
  }

  /**
   * The durable cost of a call that changes things is one fsync, before its tool runs; its end is written without
   * waiting for the disk (the hub audited the answer already), and a second delivery of a journaled call costs none.
   * A run_command at stop 41 was suspected of a second fsync per call: this counts them where an extra one would show.
   */
  @Test
  void oneForcedWritePerDeliveredCallAndNoneForItsEndOrARepeat() throws Exception {
    try (CallJournal journal = CallJournal.open(dir)) {
      for (int i = 0; i < 5; i++) {
        assertEquals(CallJournal.Kind.FRESH, journal.begin(call("c" + i, null, "echo hi"), "h").kind());
        assertEquals(i + 1, journal.forcedWrites(), "the start of call " + i + " waits for the disk");
        journal.finish("c" + i, ToolResult.ok("c" + i, "n1", new JsonObject().put("stdout", "hi\n"), 1));
        assertEquals(i + 1, journal.forcedWrites(), "the end of call " + i + " does not");
      }
      assertEquals(CallJournal.Kind.DONE, journal.begin(call("c0", null, "echo hi"), "h").kind());
      assertEquals(5, journal.forcedWrites(), "a repeat is answered from memory");
      assertNull(journal.refuse("r1", new JsonObject().put("decision", "denied")));
      assertEquals(6, journal.forcedWrites(), "a refusal is a decision: it waits for the disk");
    }
  }
}
