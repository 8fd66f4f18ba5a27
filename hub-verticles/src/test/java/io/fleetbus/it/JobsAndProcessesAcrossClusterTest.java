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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A job launched through the hub (approval, then wait and logs over HTTP), and a managed process
 * that outlives a SIGKILLed node: the restarted node re-adopts it instead of starting a second copy.
 */
@Timeout(240)
@Tag("cluster")
class JobsAndProcessesAcrossClusterTest {
  /** A sleep of 300 s and a fraction no other process names: the managed process's only argument. */
  private final String marker = "300." + Long.toUnsignedString(UUID.randomUUID().getMostSignificantBits());

  private long copiesRunning() {
    return ProcessHandle.allProcesses()
      .filter(h -> h.info().arguments().map(a -> List.of(a).contains(marker)).orElse(false)).count();
  }

  private static JsonObject data(Response r) {
    assertEquals(200, r.status(), r.body().encode());
    return r.body().getJsonObject("data");
  }

  /**
   * Issue 19, item 2: a job launched with {@code follow: true} over the WebSocket API says {@code following} when it
   * started, its output keeps arriving after job_launch's answer until the job ends, and the result comes last, with
   * the job's final state. A cancel while following stops the following, not the job.
   */
  @Test
  void aFollowedJobStreamsItsOutputOverWebSocketUntilItEnds() {
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try (TestFleet fleet = new TestFleet(1000)) {
      FleetProcess hub = fleet.startHub();
      fleet.startNode("n1", "sudo", new JsonObject().put("allowlist", new JsonArray().add("echo").add("sleep")));
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      Duration t = Duration.ofSeconds(30);
      try (WsTestClient ws = WsTestClient.connect(vertx, fleet, fleet.token(), 0)) {
        ws.send(new JsonObject().put("type", "call").put("id", "f1").put("node", "n1").put("tool", "job_launch")
          .put("args", new JsonObject().put("follow", true)
            .put("command", "for i in 1 2 3 4 5; do echo line-$i; sleep 0.3; done; echo last >&2; exit 3")));
        JsonObject asked = ws.await("approval_required", "f1", t);
        assertEquals(200, fleet.approve(asked.getString("approvalId"), "follow test").status());
        // every message of this call, in the order the socket got them, up to its result
        List<JsonObject> seen = new java.util.ArrayList<>();
        JsonObject m;
        do {
          m = ws.await(x -> "f1".equals(x.getValue("id")), t);
          seen.add(m);
        } while (!"result".equals(m.getString("type")));
        List<String> types = seen.stream().map(x -> x.getString("type")).toList();
        int following = types.indexOf("following");
        assertTrue(following >= 0, types.toString());
        String jobId = seen.get(following).getJsonObject("data").getString("jobId");
        assertTrue(jobId != null && !jobId.isEmpty(), seen.get(following).encode());
        String output = seen.stream().filter(x -> "chunk".equals(x.getString("type"))).map(x -> x.getString("data"))
          .reduce("", String::concat);
        assertEquals("line-1\nline-2\nline-3\nline-4\nline-5\n", output.replace("last\n", ""), output);
        assertTrue(output.contains("last\n"), "stderr too: " + output);
        long afterLaunch = seen.subList(following, seen.size()).stream().filter(x -> "chunk".equals(x.getString("type")))
          .count();
        assertTrue(afterLaunch >= 2, "output kept coming after job_launch answered: " + types);
        JsonObject job = m.getJsonObject("data").getJsonObject("job");
        assertEquals(jobId, m.getJsonObject("data").getString("jobId"));
        assertEquals("failed", job.getString("status"), job.encode());
        assertEquals(3, job.getInteger("exitCode"), job.encode());
        assertEquals("failed", m.getJsonObject("data").getString("status"), "data.status is the job's final state");

        // a cancel while following: the socket stops following, the job goes on
        ws.send(new JsonObject().put("type", "call").put("id", "f2").put("node", "n1").put("tool", "job_launch")
          .put("args", new JsonObject().put("follow", true).put("command", "sleep 60")));
        assertEquals(200, fleet.approve(ws.await("approval_required", "f2", t).getString("approvalId"), "f2").status());
        String second = ws.await("following", "f2", t).getJsonObject("data").getString("jobId");
        ws.send(new JsonObject().put("type", "cancel").put("id", "f2"));
        JsonObject stopped = ws.await("cancelled", "f2", t);
        assertEquals(false, stopped.getBoolean("following"), stopped.encode());
        assertEquals("running", data(fleet.post("/api/v1/nodes/n1/tools/job_status",
          new JsonObject().put("job_id", second).encode())).getString("status"));
        assertEquals(true, data(fleet.post("/api/v1/nodes/n1/tools/job_cancel",
          new JsonObject().put("job_id", second).encode())).getBoolean("cancelled"));
      }
      // over REST there is no stream to follow: said at once
      Response rest = fleet.post("/api/v1/nodes/n1/tools/job_launch",
        new JsonObject().put("command", "echo x").put("follow", true).encode());
      assertEquals(400, rest.status(), rest.body().encode());
      assertTrue(rest.body().getJsonObject("error").getString("message").contains("'follow'"), rest.body().encode());
    } finally {
      vertx.close();
    }
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
      // issue 32: a job follows its launcher's call — another operator gets the unknown job's 404 and a list without it
      String oscar = fleet.mintToken("oscar", "operator");
      Response othersLogs = fleet.sendTo(fleet.httpPort, "POST", "/api/v1/nodes/n1/tools/job_logs",
        new JsonObject().put("job_id", jobId).encode(), oscar);
      assertEquals(404, othersLogs.status(), othersLogs.body().encode());
      assertFalse(othersLogs.body().encode().contains("second"), othersLogs.body().encode());
      Response othersList = fleet.sendTo(fleet.httpPort, "POST", "/api/v1/nodes/n1/tools/job_list", "{}", oscar);
      assertFalse(data(othersList).encode().contains(jobId), othersList.body().encode());
      assertTrue(data(fleet.post("/api/v1/nodes/n1/tools/job_list", "{}")).encode().contains(jobId));
      // job_cancel likewise (tier 2, an operator's): another user's job is the same 404, and nothing is cancelled
      Response othersCancel = fleet.sendTo(fleet.httpPort, "POST", "/api/v1/nodes/n1/tools/job_cancel",
        new JsonObject().put("job_id", jobId).encode(), oscar);
      assertEquals(404, othersCancel.status(), othersCancel.body().encode());
      assertFalse(othersCancel.body().encode().contains("already ended"), "it reached the node: " + othersCancel.body());
      JsonObject viaSeedName = data(fleet.post("/api/v1/nodes/n1/tools/aegis.task.status",
        new JsonObject().put("execution_id", jobId).encode()));
      assertEquals("completed", viaSeedName.getString("status"));

      JsonObject added = data(fleet.post("/api/v1/nodes/n1/tools/add_process", new JsonObject().put("name", "keeper")
        .put("exe_path", "/bin/sleep").put("args", new JsonArray().add(marker)) // allowlisted: tier 2 may start it
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
