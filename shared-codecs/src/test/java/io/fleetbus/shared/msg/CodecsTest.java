package io.fleetbus.shared.msg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What crosses the cluster must come back equal; what stays local must be the same instance. */
class CodecsTest {

  private static <T> T wireRoundTrip(RecordCodec<T> codec, T value) {
    Buffer buf = Buffer.buffer().appendString("xx");
    codec.encodeToWire(buf, value);
    return codec.decodeFromWire(2, buf);
  }

  @Test
  void toolCallSurvivesTheWire() {
    ToolCall call = new ToolCall("c1", "k1", "alice", List.of("admin"), "run_command",
      new JsonObject().put("command", "echo hi"), "n1", null, 5000, true, "sig");
    RecordCodec<ToolCall> codec = new RecordCodec<>(ToolCall.class, ToolCall::toJson, ToolCall::fromJson);
    assertEquals(call, wireRoundTrip(codec, call));
    assertEquals(call, codec.transform(call));
  }

  @Test
  void heartbeatAndResultSurviveTheWire() {
    Heartbeat hb = new Heartbeat("n1", "i1", 7, 123, new Metrics(12.5, 100, 2000, 300, 40, 0.5, null), "p");
    assertEquals(hb, wireRoundTrip(new RecordCodec<>(Heartbeat.class, Heartbeat::toJson, Heartbeat::fromJson), hb));
    ToolResult r = ToolResult.error("c1", "n1", io.fleetbus.shared.bus.FailureCode.TIMEOUT, "late", 12);
    assertEquals(r, wireRoundTrip(new RecordCodec<>(ToolResult.class, ToolResult::toJson, ToolResult::fromJson), r));
  }
}
