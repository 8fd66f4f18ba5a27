package io.fleetbus.hub.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A hub's own copy of call records stays within its weight, not only its count: large results (a read_file of 100 KiB
 * each) would otherwise fill a 256 MiB heap long before 10,000 records.
 */
class KeptRecordsTest {
  private static final int KIB = 1024;

  private static CallRecord running(String id) {
    ToolCall call = ToolCall.fromJson(new JsonObject().put("callId", id).put("principal", "alice").put("nodeId", "n1")
      .put("tool", "read_file"));
    return CallRecord.started(call, 1, null, 1, "hub-a");
  }

  private static CallRecord finished(String id, int resultChars) {
    return running(id).finished(ToolResult.ok(id, "n1", new JsonObject().put("content", "x".repeat(resultChars))
      .put("truncated", false), 3));
  }

  @Test
  void largeResultsAreKeptWithinTheWeightNewestFirst() {
    KeptRecords kept = new KeptRecords(10_000, 1024 * KIB);
    for (int i = 0; i < 50; i++) {
      kept.put(finished("c" + i, 100 * KIB));
    }
    assertTrue(kept.weight() <= 1024 * KIB, "weight " + kept.weight());
    assertTrue(kept.size() >= 9 && kept.size() <= 10, "about ten 100 KiB records in 1 MiB: " + kept.size());
    assertNotNull(kept.get("c49"), "the newest is kept");
    assertNull(kept.get("c0"), "the oldest went");
  }

  @Test
  void aCallNotFinishedIsNeverDroppedWhateverIsOverTheBounds() {
    KeptRecords kept = new KeptRecords(10, 512 * KIB);
    IntStream.range(0, 5).forEach(i -> kept.put(running("open" + i)));
    IntStream.range(0, 40).forEach(i -> kept.put(finished("done" + i, 50 * KIB)));
    IntStream.range(0, 5).forEach(i -> assertNotNull(kept.get("open" + i), "open" + i));
    assertTrue(kept.weight() <= 512 * KIB, "weight " + kept.weight());
    assertEquals(5 + 10, kept.size(), "the open calls and the newest ten finished ones");
    assertNotNull(kept.get("done39"));
    // a call that finishes joins the line of finished ones at its end
    kept.put(finished("open0", 10));
    assertNotNull(kept.get("open0"));
    assertNull(kept.get("done30"), "the oldest finished one made room");
  }

  @Test
  void aNewStateOfACallReplacesItsWeightAndTheCountBoundHolds() {
    KeptRecords kept = new KeptRecords(10, Long.MAX_VALUE);
    kept.put(running("c"));
    CallRecord done = finished("c", 10 * KIB);
    kept.put(done);
    assertEquals(KeptRecords.weightOf(done), kept.weight(), "counted once, as finished");
    kept.remove("c");
    assertEquals(0, kept.weight());
    IntStream.range(0, 25).forEach(i -> kept.put(finished("s" + i, 10)));
    assertEquals(10, kept.size());
    assertNull(kept.get("s14"));
    assertNotNull(kept.get("s15"));
  }

  @Test
  void theEstimateIsNearTheEncodedLength() {
    JsonObject data = new JsonObject().put("hostname", "web-01").put("cpus", 8).put("load", 0.42)
      .put("disks", new JsonArray().add(new JsonObject().put("mount", "/").put("freeBytes", 123456789L).put("fs", "ext4"))
        .add(new JsonObject().put("mount", "/var").put("freeBytes", 98765L).put("fs", "xfs")))
      .put("ok", true).put("note", null).put("text", "line one\nline two ".repeat(40));
    long estimate = KeptRecords.estimate(data);
    int encoded = data.encode().length();
    assertTrue(Math.abs(estimate - encoded) <= encoded / 5, "estimate " + estimate + " vs encoded " + encoded);
  }
}
