package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.InetAddress;
import java.net.http.HttpRequest;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A hub and a node as separate JVMs on a random cluster: calls, errors and the approval step over HTTP. */
@Timeout(180)
@Tag("cluster")
class ToolCallAcrossClusterTest {
  static TestFleet fleet;
  static FleetProcess hub;
  static FleetProcess node;

  @BeforeAll
  static void startFleet() {
    fleet = new TestFleet(1000);
    hub = fleet.startHub();
    node = fleet.startNode("n1", "sudo");
    hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
  }

  @AfterAll
  static void stopFleet() {
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  void systemInfoComesFromTheRealMachine() throws Exception {
    Response r = fleet.post("/api/v1/nodes/n1/tools/get_system_info", "{}");
    assertEquals(200, r.status(), r.body().encode());
    JsonObject data = r.body().getJsonObject("data");
    assertEquals(InetAddress.getLocalHost().getHostName(), data.getString("hostname"));
    assertTrue(data.getJsonObject("memory").getLong("totalMb") > 0);
    assertEquals("n1", r.body().getString("nodeId"));
    assertEquals("ok", r.body().getString("status"));
  }

  @Test
  void runningProcessesIncludeTheNodeItself() {
    Response r = fleet.post("/api/v1/nodes/n1/tools/get_running_processes", "{\"name_filter\": \"java\", \"limit\": 200}");
    assertEquals(200, r.status(), r.body().encode());
    JsonArray procs = r.body().getJsonObject("data").getJsonArray("processes");
    assertTrue(procs.stream().map(JsonObject.class::cast).anyMatch(p -> p.getLong("pid") == node.pid()),
      "node pid " + node.pid() + " not in " + procs.encode());
  }

  @Test
  void nodesListShowsTheNodeOnlineWithMetrics() {
    hub.awaitLine("node online \\[node: n1", Duration.ofSeconds(5));
    Response r = fleet.get("/api/v1/nodes/n1");
    assertEquals(200, r.status());
    assertTrue(r.body().getBoolean("online"));
    assertEquals("sudo", r.body().getString("capabilityTier"));
    Response all = fleet.get("/api/v1/nodes");
    assertEquals(1, all.body().getJsonArray("nodes").size());
  }

  @Test
  void invalidArgumentsAre400NamingTheField() {
    Response r = fleet.post("/api/v1/nodes/n1/tools/get_running_processes", "{\"limit\": 9999}");
    assertEquals(400, r.status());
    assertEquals(400, r.body().getJsonObject("error").getInteger("code"));
    assertTrue(r.body().getJsonObject("error").getString("message").contains("limit"), r.body().encode());
    Response notJson = fleet.post("/api/v1/nodes/n1/tools/get_running_processes", "{limit");
    assertEquals(400, notJson.status());
  }

  @Test
  void unknownToolAndUnknownNodeAre404() {
    assertEquals(404, fleet.post("/api/v1/nodes/n1/tools/format_everything", "{}").status());
    Response r = fleet.post("/api/v1/nodes/nowhere/tools/get_system_info", "{}");
    assertEquals(404, r.status());
    assertTrue(r.body().getJsonObject("error").getString("message").contains("nowhere"));
  }

  @Test
  void missingOrForgedTokenIs401() {
    Response none = fleet.send(HttpRequest.newBuilder(fleet.uri("/api/v1/nodes")).GET(), null);
    assertEquals(401, none.status());
    String forged = fleet.token().substring(0, fleet.token().lastIndexOf('.') + 1) + "AAAA";
    Response bad = fleet.send(HttpRequest.newBuilder(fleet.uri("/api/v1/nodes")).GET(), forged);
    assertEquals(401, bad.status());
    assertEquals(200, fleet.send(HttpRequest.newBuilder(fleet.uri("/health")).GET(), null).status());
  }

  @Test
  void tier3CallWaitsForApprovalAndRunsWhenApproved() {
    Response pending = fleet.post("/api/v1/nodes/n1/tools/run_command", "{\"command\": \"echo approved-run\"}");
    assertEquals(202, pending.status(), pending.body().encode());
    String approvalId = pending.body().getString("approvalId");
    String callId = pending.body().getString("callId");
    assertNotNull(approvalId);
    JsonArray listed = fleet.get("/api/v1/approvals?status=pending").body().getJsonArray("approvals");
    assertTrue(listed.stream().map(JsonObject.class::cast).anyMatch(a -> approvalId.equals(a.getString("approvalId"))));
    assertEquals(202, fleet.get("/api/v1/calls/" + callId).status(), "not run before approval");

    Response decided = fleet.approve(approvalId, "test");
    assertEquals(200, decided.status(), decided.body().encode());
    Response result = fleet.get("/api/v1/calls/" + callId + "?wait=20");
    assertEquals(200, result.status(), result.body().encode());
    assertEquals("approved-run\n", result.body().getJsonObject("data").getString("stdout"));
    assertEquals(0, result.body().getJsonObject("data").getInteger("exitCode"));
    assertEquals(409, fleet.approve(approvalId, null).status(), "decided only once");
  }

  @Test
  void tier3CallDeniedIs403AndNeverRuns() {
    Response pending = fleet.post("/api/v1/nodes/n1/tools/run_command", "{\"command\": \"echo never\"}");
    assertEquals(202, pending.status());
    Response denied = fleet.deny(pending.body().getString("approvalId"), "not today");
    assertEquals(200, denied.status());
    Response result = fleet.get("/api/v1/calls/" + pending.body().getString("callId") + "?wait=5");
    assertEquals(403, result.status(), result.body().encode());
    assertTrue(result.body().getJsonObject("error").getString("message").contains("not today"));
    assertFalse(result.body().containsKey("data") && result.body().getValue("data") != null);
  }

  @Test
  void commandOffTheAllowlistIsRefusedByTheNodeBeforeAnyoneIsAsked() {
    int pending = fleet.get("/api/v1/approvals?status=pending").body().getJsonArray("approvals").size();
    Response result = fleet.post("/api/v1/nodes/n1/tools/run_command?wait=0", "{\"command\": \"rm -rf /tmp/x\"}");
    assertEquals(403, result.status(), result.body().encode());
    assertTrue(result.body().getJsonObject("error").getString("message").contains("allowlist"));
    assertEquals(pending, fleet.get("/api/v1/approvals?status=pending").body().getJsonArray("approvals").size());
  }

  /**
   * Issue 19, item 10 through the API: the seeds' parameters are accepted (honoured, or named under unsupported), and a
   * seed tool fleetbus does not offer names its platform instead of "unknown tool".
   */
  @Test
  void seedParametersAreAcceptedAndSeedOnlyToolsSayWhereTheyRun() {
    Response pending = fleet.post("/api/v1/nodes/n1/tools/run_command", new JsonObject().put("command", "date +%Z")
      .put("env", new JsonObject().put("TZ", "XYZ-3")).put("timeoutMs", 5000).put("user_session", true).encode());
    assertEquals(202, pending.status(), pending.body().encode());
    JsonObject approval = fleet.get("/api/v1/approvals?status=pending").body().getJsonArray("approvals").stream()
      .map(JsonObject.class::cast).filter(a -> a.getString("approvalId").equals(pending.body().getString("approvalId")))
      .findFirst().orElseThrow();
    assertTrue(approval.getString("summary").contains("with environment: {\"TZ\":\"XYZ-3\"}"), approval.getString("summary"));
    assertTrue(approval.getString("summary").contains("timeout: 5000 ms"), approval.getString("summary"));
    assertEquals(200, fleet.approve(pending.body().getString("approvalId"), "seed fields").status());
    Response ran = fleet.get("/api/v1/calls/" + pending.body().getString("callId") + "?wait=20");
    assertEquals(200, ran.status(), ran.body().encode());
    JsonObject data = ran.body().getJsonObject("data");
    assertEquals("XYZ\n", data.getString("stdout"), data.encode());
    assertTrue(data.containsKey("signal") && data.getValue("signal") == null, data.encode());
    assertTrue(data.getJsonObject("unsupported").getString("user_session").startsWith("not supported on linux: "),
      data.encode());

    Response refusedEnv = fleet.post("/api/v1/nodes/n1/tools/run_command", new JsonObject().put("command", "date")
      .put("env", new JsonObject().put("LD_PRELOAD", "/tmp/x.so")).encode());
    assertEquals(403, refusedEnv.status(), "the dry check refuses it before anyone is asked: " + refusedEnv.body().encode());

    Response added = fleet.post("/api/v1/nodes/n1/tools/add_process", new JsonObject().put("name", "seeded")
      .put("exe_path", "/bin/echo").put("visibility", "Hidden").put("schedulePresetId", null).encode());
    assertEquals(200, added.status(), added.body().encode());
    JsonObject notes = added.body().getJsonObject("data").getJsonObject("unsupported");
    assertTrue(notes.containsKey("visibility") && notes.containsKey("schedulePresetId"), added.body().encode());
    assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/delete_process", "{\"process_name\": \"seeded\"}").status());

    Response windows = fleet.post("/api/v1/nodes/n1/tools/registry_operation", "{}");
    assertEquals(400, windows.status(), windows.body().encode());
    assertTrue(windows.body().getJsonObject("error").getString("message").contains("runs on windows only"),
      windows.body().encode());
    Response later = fleet.post("/api/v1/nodes/n1/tools/run_python", "{\"code\": \"print(1)\"}");
    assertEquals(400, later.status(), later.body().encode());
    assertTrue(later.body().getJsonObject("error").getString("message").contains("not implemented in fleetbus yet"));
    assertEquals(404, fleet.post("/api/v1/nodes/n1/tools/no_such_tool", "{}").status(), "an unknown name stays 404");
  }

  @Test
  void toolsListIsTheCatalogue() {
    Response r = fleet.get("/api/v1/tools");
    assertEquals(200, r.status());
    JsonArray tools = r.body().getJsonArray("tools");
    JsonObject runCommand = tools.stream().map(JsonObject.class::cast)
      .filter(t -> "run_command".equals(t.getString("name"))).findFirst().orElseThrow();
    assertEquals(3, runCommand.getInteger("tier"));
    assertTrue(runCommand.getJsonArray("aliases").contains("cmd.run"));
    assertNotNull(runCommand.getJsonObject("inputSchema"));
  }

  /**
   * Issue 19, item 11: a second agent started with a node id another running agent holds is refused (409) and, after
   * {@code duplicateIdRefusals} refusals, exits with its own code and says why — it does not retry for ever. The
   * running node is not disturbed.
   */
  @Test
  void aSecondAgentWithTheSameNodeIdGivesUpWithItsOwnExitCode() throws Exception {
    // the same node started twice (a cloned machine, a second service): same id, same credential, no new token
    java.nio.file.Path twinData = fleet.dir.resolve("node-n1-twin");
    java.nio.file.Files.createDirectories(twinData.resolve("trust"));
    java.nio.file.Files.copy(fleet.dir.resolve("node-n1").resolve("trust").resolve("identity.json"),
      twinData.resolve("trust").resolve("identity.json"));
    FleetProcess twin = fleet.startNode("n1", "sudo", new JsonObject().put("duplicateIdRefusals", 2),
      java.util.Map.of("FLEETBUS_NODE_DATA", twinData.toString(), "FLEETBUS_ENROLLMENT_TOKEN", ""));
    int code = twin.awaitExit(java.time.Duration.ofSeconds(60));
    assertEquals(io.fleetbus.node.settings.NodeSettings.EXIT_DUPLICATE_ID, code, twin.tail(20));
    assertTrue(twin.tail(200).contains("node id 'n1' is held by another running node agent (hello refused 2 times"),
      twin.tail(20));
    assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status(), "the first agent goes on");
  }
}
