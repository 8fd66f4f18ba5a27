package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A job launched through the hub (approval, then wait and logs over HTTP), and a managed process
 * that outlives a SIGKILLed node: the restarted node re-adopts it instead of starting a second copy.
 */
@Timeout(240)
class JobsAndProcessesAcrossClusterTest {
  private final String marker = "fleetbus-it-" + UUID.randomUUID();

  private long copiesRunning() {
    return ProcessHandle.allProcesses()
      .filter(h -> h.info().arguments().map(a -> List.of(a).contains(marker)).orElse(false)).count();
  }

  private static JsonObject data(Response r) {
    assertEquals(200, r.status(), r.body().encode());
    return r.body().getJsonObject("data");
  }

  @Test
  void jobRunsAfterApprovalAndManagedProcessSurvivesANodeKill() {
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hub = fleet.startHub();
      FleetProcess node = fleet.startNode("n1", "sudo");
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);

      Response pending = fleet.post("/api/v1/nodes/n1/tools/job_launch",
        new JsonObject().put("command", "echo first; echo second >&2; echo third").put("label", "it").encode());
      assertEquals(202, pending.status(), pending.body().encode());
      assertEquals(200, fleet.approve(pending.body().getString("approvalId"), "test").status());
      JsonObject launched = data(fleet.get("/api/v1/calls/" + pending.body().getString("callId") + "?wait=20"));
      String jobId = launched.getString("jobId");

      JsonObject waited = data(fleet.post("/api/v1/nodes/n1/tools/job_wait",
        new JsonObject().put("job_id", jobId).put("timeout_seconds", 30).encode()));
      assertEquals("completed", waited.getString("status"), waited.encode());
      assertEquals(0, waited.getJsonObject("job").getInteger("exitCode"));
      JsonObject logs = data(fleet.post("/api/v1/nodes/n1/tools/job_logs",
        new JsonObject().put("job_id", jobId).put("limit", 10).encode()));
      assertEquals(3, logs.getLong("total"));
      assertTrue(logs.getJsonArray("lines").stream().map(JsonObject.class::cast)
        .anyMatch(l -> "second".equals(l.getString("text")) && "stderr".equals(l.getString("stream"))), logs.encode());
      JsonObject viaSeedName = data(fleet.post("/api/v1/nodes/n1/tools/aegis.task.status",
        new JsonObject().put("execution_id", jobId).encode()));
      assertEquals("completed", viaSeedName.getString("status"));

      JsonObject added = data(fleet.post("/api/v1/nodes/n1/tools/add_process", new JsonObject().put("name", "keeper")
        .put("exe_path", "/bin/sh").put("args", new JsonArray().add("-c").add("sleep 300; true").add(marker))
        .put("launch_mode", "always").encode()));
      assertEquals("running", added.getString("status"), added.encode());
      long pid = added.getLong("pid");

      int mark = hub.mark();
      node.kill();
      hub.awaitLine(TestFleet.offlineLine("n1"), mark, Duration.ofSeconds(10));
      assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the process outlives the node");
      int again = hub.mark();
      FleetProcess restarted = fleet.startNode("n1", "sudo");
      hub.awaitLine(TestFleet.onlineLine("n1"), again, TestFleet.START);
      restarted.awaitLine("re-adopted, not started again \\[name: keeper, pid: " + pid + "\\]", Duration.ofSeconds(5));

      JsonObject keeper = data(fleet.post("/api/v1/nodes/n1/tools/get_process_list", "{}"))
        .getJsonArray("processes").getJsonObject(0);
      assertEquals(pid, keeper.getLong("pid"));
      assertEquals("running", keeper.getString("status"));
      assertEquals(1, copiesRunning(), "no second copy");
      assertEquals("completed", data(fleet.post("/api/v1/nodes/n1/tools/job_status",
        new JsonObject().put("job_id", jobId).encode())).getString("status"), "finished results survive the restart");

      JsonObject killed = data(fleet.post("/api/v1/nodes/n1/tools/kill_process",
        new JsonObject().put("process_name", "keeper").encode()));
      assertEquals("stopped", killed.getString("status"));
      // no longer the node's child: the system's init collects it, in its own time
      ProcessHandle.of(pid).ifPresent(h -> h.onExit().orTimeout(10, TimeUnit.SECONDS).join());
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    } finally {
      ProcessHandle.allProcesses().filter(h -> h.info().arguments().map(a -> List.of(a).contains(marker)).orElse(false))
        .forEach(ProcessHandle::destroyForcibly);
    }
  }
}
