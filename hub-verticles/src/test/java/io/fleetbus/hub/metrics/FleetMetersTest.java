package io.fleetbus.hub.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.fleetbus.shared.msg.ToolCall;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.json.JsonArray;
import io.fleetbus.hub.calls.CallEvents;
import io.fleetbus.hub.calls.CallRecord;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Fleet events become meters: calls by tool/outcome, latency buckets, approvals pending, nodes by state, heartbeats. */
class FleetMetersTest {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicLong received = new AtomicLong(7);
  private final AtomicLong dropped = new AtomicLong(2);
  private final FleetMeters meters = new FleetMeters(registry, received::get, dropped::get);

  @Test
  void nodesAreSeededThenFollowEvents() {
    meters.seedNodes(new JsonArray().add(node("a", true)).add(node("b", false)));
    assertEquals(1.0, value("fleetbus_nodes{state=\"online\"}"));
    assertEquals(1.0, value("fleetbus_nodes{state=\"offline\"}"));
    meters.onEvent(new JsonObject().put("type", "node.online").put("nodeId", "b"));
    meters.onEvent(new JsonObject().put("type", "node.online").put("nodeId", "c"));
    meters.onEvent(new JsonObject().put("type", "node.offline").put("nodeId", "a"));
    assertEquals(2.0, value("fleetbus_nodes{state=\"online\"}"));
    assertEquals(1.0, value("fleetbus_nodes{state=\"offline\"}"));
  }

  @Test
  void approvalsPendingCountsOpenRequestsOnce() {
    meters.onEvent(approval("approval.requested", "p1"));
    meters.onEvent(approval("approval.requested", "p2"));
    meters.onEvent(approval("approval.requested", "p2"));
    assertEquals(2.0, value("fleetbus_approvals_pending"));
    meters.onEvent(approval("approval.decided", "p1"));
    meters.onEvent(approval("approval.decided", "p1"));
    assertEquals(1.0, value("fleetbus_approvals_pending"));
  }

  @Test
  void callsCountByToolAndOutcomeWithLatencyBuckets() {
    meters.onEvent(finished("call-1", "get_system_info", 200, 40L));
    meters.onEvent(finished("call-2", "get_system_info", 200, 3000L));
    meters.onEvent(finished("call-3", "run_command", 403, null));
    assertEquals(2.0, value("fleetbus_calls_total{code=\"200\",outcome=\"ok\",tool=\"get_system_info\"}"));
    assertEquals(1.0, value("fleetbus_calls_total{code=\"403\",outcome=\"error\",tool=\"run_command\"}"));
    assertEquals(2.0, value("fleetbus_call_duration_seconds_count{tool=\"get_system_info\"}"));
    assertEquals(1.0, value("fleetbus_call_duration_seconds_bucket{tool=\"get_system_info\",le=\"0.05\"}"));
    assertEquals(2.0, value("fleetbus_call_duration_seconds_bucket{tool=\"get_system_info\",le=\"5.0\"}"));
    assertFalse(registry.scrape().contains("call-1"), "no call id in a label");
    assertFalse(registry.scrape().contains("fleetbus_call_duration_seconds_count{tool=\"run_command\""),
      "a call that never ran has no latency");
  }

  @Test
  void heartbeatCountersReadTheMonitor() {
    System.gc(); // the suppliers must outlive a collection (Micrometer only holds them weakly)
    assertEquals(7.0, value("fleetbus_heartbeats_total{result=\"received\"}"));
    received.addAndGet(5);
    assertEquals(12.0, value("fleetbus_heartbeats_total{result=\"received\"}"));
    assertEquals(2.0, value("fleetbus_heartbeats_total{result=\"dropped\"}"));
  }

  private static JsonObject node(String id, boolean online) {
    return new JsonObject().put("nodeId", id).put("online", online);
  }

  private static JsonObject approval(String type, String id) {
    return new JsonObject().put("type", type).put("approvalId", id);
  }

  @Test
  void cancelledCallsCountApartFromOkAndErrors() {
    CallRecord running = CallRecord.started(ToolCall.fromJson(new JsonObject().put("callId", "call-9")
      .put("principal", "alice").put("nodeId", "a").put("tool", "run_command")), 3, null, 0, null);
    meters.onEvent(CallEvents.finished(running.finished(ToolResult.cancelled("call-9", "a", "bob", "stopped", 12)), 15));
    assertEquals(1.0, value("fleetbus_calls_total{code=\"200\",outcome=\"cancelled\",tool=\"run_command\"}"));
    assertFalse(registry.scrape().contains("outcome=\"ok\",tool=\"run_command\""), "a cancel is not counted as ok");
  }

  private static JsonObject finished(String callId, String tool, int code, Long latencyMs) {
    return new JsonObject().put("type", "call.finished").put("callId", callId).put("nodeId", "a").put("tool", tool)
      .put("code", code).put("status", code == 200 ? "ok" : "error").put("latencyMs", latencyMs);
  }

  /** The value of one exact series in the scrape, or fails naming it. */
  private double value(String series) {
    String scrape = registry.scrape();
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(scrape);
    if (!m.find()) {
      throw new AssertionError("no series " + series + " in:\n" + scrape);
    }
    return Double.parseDouble(m.group(1));
  }
}
