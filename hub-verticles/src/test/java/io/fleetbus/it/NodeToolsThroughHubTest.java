package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.it.TestFleet.Response;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.NodeRegistered;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.Future;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The sandbox seen through a real hub: a sudo node and an unprivileged node as separate JVMs, and a
 * test-side cluster member that talks to a node directly on the bus, as any peer could.
 */
@Timeout(240)
@Tag("cluster")
class NodeToolsThroughHubTest {
  static TestFleet fleet;
  static FleetProcess hub;
  static FleetProcess sudo;
  static FleetProcess unprivileged;
  static FleetProcess unconfined;
  static ClusterLauncher.Member peer;

  @BeforeAll
  static void startFleet() throws Exception {
    fleet = new TestFleet(1000);
    hub = fleet.startHub();
    sudo = fleet.startNode("s1", "sudo", new JsonObject().put("labels", new JsonObject().put("pool", "dry")));
    unprivileged = fleet.startNode("u1", "unprivileged");
    unconfined = fleet.startNode("s2", "sudo", new JsonObject().put("confinement", "none"));
    hub.awaitLine(TestFleet.onlineLine("s1"), TestFleet.START);
    hub.awaitLine(TestFleet.onlineLine("s2"), TestFleet.START);
    hub.awaitLine(TestFleet.onlineLine("u1"), TestFleet.START);
    JsonObject cluster = new JsonObject()
      .put("config", Path.of("..", "cluster.xml").toAbsolutePath().normalize().toString())
      .put("name", fleet.clusterName).put("host", "127.0.0.1").put("port", TestFleet.freePort())
      .put("members", "127.0.0.1:" + fleet.hubClusterPort);
    peer = ClusterLauncher.start(new JsonObject().put("cluster", cluster), true).toCompletionStage().toCompletableFuture()
      .get(90, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stopFleet() throws Exception {
    if (peer != null) {
      peer.vertx().close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    if (fleet != null) {
      fleet.close();
    }
  }

  /** Posts a tier-3 call, approves it over HTTP, and returns the call's final record. */
  private static Response approvedCall(String nodeId, String tool, JsonObject args) {
    Response pending = fleet.post("/api/v1/nodes/" + nodeId + "/tools/" + tool, args.encode());
    assertEquals(202, pending.status(), pending.body().encode());
    Response ok = fleet.approve(pending.body().getString("approvalId"), "test");
    assertEquals(200, ok.status(), ok.body().encode());
    return fleet.get("/api/v1/calls/" + pending.body().getString("callId") + "?wait=30");
  }

  private static String error(Response r) {
    return r.body().getJsonObject("error").getString("message");
  }

  /** Each node tells the hub what the kernel lets its processes do; one forced to none says so and runs no command. */
  @Test
  void theNodeViewShowsConfinementAndANodeWithoutItRefusesCommands() {
    JsonObject s1 = fleet.get("/api/v1/nodes/s1").body().getJsonObject("confinement");
    if ("none".equals(s1.getString("mode"))) {
      assertEquals("kernel without Landlock", s1.getString("reason"), s1.encode());
    } else {
      assertEquals("landlock-strict", s1.getString("mode"), s1.encode());
      assertTrue(s1.getInteger("abi") >= 1, s1.encode());
    }
    assertEquals(true, s1.getBoolean("required"), s1.encode());
    assertEquals(true, s1.getBoolean("processGroups"), s1.encode());
    JsonObject s2 = fleet.get("/api/v1/nodes/s2").body().getJsonObject("confinement");
    assertEquals("none", s2.getString("mode"), s2.encode());
    assertEquals("conf", s2.getString("reason"), s2.encode());
    JsonObject u1 = fleet.get("/api/v1/nodes/u1").body().getJsonObject("confinement");
    assertEquals("starts no processes", u1.getString("reason"), u1.encode());
    boolean listed = fleet.get("/api/v1/nodes").body().getJsonArray("nodes").stream().map(JsonObject.class::cast)
      .anyMatch(n -> "s2".equals(n.getString("nodeId")) && "none".equals(n.getJsonObject("confinement").getString("mode")));
    assertTrue(listed, "GET /api/v1/nodes shows it too");

    // answered at once: no person is asked to approve what this node will not run
    Response refused = fleet.post("/api/v1/nodes/s2/tools/run_command", new JsonObject().put("command", "echo unconfined")
      .encode());
    assertEquals(503, refused.status(), refused.body().encode());
    assertTrue(refused.body().encode().contains("cannot confine processes"), refused.body().encode());
  }

  @Test
  void sudoNodeRefusesWriteFileUnderEtc() {
    Path probe = Path.of("/etc/fleetbus-it-probe-" + UUID.randomUUID());
    Response r = fleet.post("/api/v1/nodes/s1/tools/write_file", new JsonObject().put("path", probe.toString())
      .put("content", "x").encode());
    assertEquals(403, r.status(), r.body().encode());
    assertTrue(error(r).contains("outside this node's path scope"), error(r));
    assertTrue(error(r).contains("/etc"), error(r));
    assertFalse(Files.exists(probe));
  }

  @Test
  void sudoNodeWritesInsideItsScopeAfterApprovalAndReadsBackWithoutOne() throws Exception {
    Path target = fleet.dir.resolve("written/by-fleetbus.txt");
    Response w = approvedCall("s1", "fs.write", new JsonObject().put("path", target.toString()).put("content", "hello fleet\n"));
    assertEquals(200, w.status(), w.body().encode());
    assertEquals("hello fleet\n", Files.readString(target));
    Response read = fleet.post("/api/v1/nodes/s1/tools/read_file", new JsonObject().put("path", target.toString()).encode());
    assertEquals(200, read.status(), read.body().encode());
    assertEquals("hello fleet\n", read.body().getJsonObject("data").getString("content"));
  }

  @Test
  void unprivilegedNodeRefusesRunCommandAtTheRouterAndTheNodeNeverSeesIt() throws Exception {
    String marker = "echo never-" + UUID.randomUUID();
    Response r = fleet.post("/api/v1/nodes/u1/tools/run_command", new JsonObject().put("command", marker).encode());
    assertEquals(403, r.status(), r.body().encode());
    assertTrue(error(r).contains("capability tier 'unprivileged'"), error(r));
    String refusedCall = auditedCall("u1", marker).getString("callId");
    // a later tier-1 call is logged by the node; once its line is there, any earlier call would be too
    int mark = unprivileged.mark();
    Response health = fleet.post("/api/v1/nodes/u1/tools/get_agent_health", "{}");
    assertEquals(200, health.status());
    unprivileged.awaitLine("call received \\[call: " + Pattern.quote(health.body().getString("callId")), mark,
      Duration.ofSeconds(10));
    String nodeLog = Files.readString(fleet.dir.resolve("node-u1.log"));
    assertFalse(nodeLog.contains(refusedCall), "the node saw the refused call");
  }

  /** The audit record of the call to {@code nodeId} whose command was {@code command} (its arguments are kept). */
  private static JsonObject auditedCall(String nodeId, String command) {
    return fleet.get("/api/v1/audit?node=" + nodeId + "&limit=200").body().getJsonArray("records").stream()
      .map(JsonObject.class::cast)
      .filter(a -> a.getJsonObject("args") != null && command.equals(a.getJsonObject("args").getString("command")))
      .findFirst().orElseThrow(() -> new AssertionError("no audit record of '" + command + "' on " + nodeId));
  }

  private static List<String> pendingApprovals() {
    return fleet.get("/api/v1/approvals?status=pending").body().getJsonArray("approvals").stream()
      .map(a -> ((JsonObject) a).getString("approvalId")).sorted().toList();
  }

  /**
   * Issue 19, item 6: a tier-3 call no approval can make run is refused at once with the node's own answer (the
   * hub asks the node first: a signed dry check, answered with the node's proof), and nobody is asked to approve it;
   * a command the node would run still parks, and a dry-run write needs no approval.
   */
  @Test
  void callsThatCanNeverRunAreAnsweredAtOnceAndNobodyIsAsked() throws Exception {
    List<String> pendingBefore = pendingApprovals();
    Path victim = fleet.dir.resolve("victim-" + UUID.randomUUID());
    Files.createDirectories(victim);
    Object[][] cases = {
      // node, tool, arguments, status, the node's (or router's) reason, who refused
      {"s1", "run_command", new JsonObject().put("command", "rm -rf " + victim), 403, "not on this node's run_command allowlist", "node s1"},
      {"s1", "run_command", new JsonObject().put("command", "echo hi; id"), 400, "shell operator ';'", "node s1"},
      {"s1", "run_command", new JsonObject().put("command", "bash -c id"), 403, "'bash' is not on this node's run_command allowlist", "node s1"},
      {"s1", "run_command", new JsonObject().put("command", "/bin/echo hi"), 403, "'/bin/echo' is a path", "node s1"},
      {"s1", "run_script", new JsonObject().put("script", "id").put("interpreter", "bash").put("working_directory", "/etc"),
        403, "outside this node's path scope", "node s1"},
      {"s1", "delete_path", new JsonObject().put("path", "/etc/hostname"), 403, "outside this node's path scope", "node s1"},
      {"u1", "run_command", new JsonObject().put("command", "echo hi"), 403, "capability tier 'unprivileged'", "policy"},
      {"u1", "write_file", new JsonObject().put("path", "/tmp/x").put("content", "x"), 403, "capability tier 'unprivileged'", "policy"},
    };
    for (Object[] c : cases) {
      String what = c[0] + " " + c[1] + " " + c[2];
      int mark = "u1".equals(c[0]) ? 0 : sudo.mark();
      long started = System.nanoTime();
      Response r = fleet.post("/api/v1/nodes/" + c[0] + "/tools/" + c[1], ((JsonObject) c[2]).encode());
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      assertEquals(c[3], r.status(), what + " → " + r.body().encode());
      assertTrue(error(r).contains((String) c[4]), what + " → " + error(r));
      assertTrue(tookMs < 10_000, what + " took " + tookMs + " ms");
      if ("node s1".equals(c[5])) {
        // the node itself answered (its dry check), not a copy of its rules on the hub
        sudo.awaitLine("dry check \\[call: [^,]+, tool: " + c[1] + ", answer: refused " + c[3], mark, Duration.ofSeconds(10));
      }
    }
    assertTrue(Files.isDirectory(victim), "nothing ran");
    assertEquals(pendingBefore, pendingApprovals(), "no approval was created for a call that can never run");
    JsonObject audited = auditedCall("s1", "/bin/echo hi");
    assertEquals("refused", audited.getString("decision"), audited.encode());
    assertEquals("node s1", audited.getString("decider"), audited.encode());

    // a command the node would run still waits for a person (unless s1 cannot confine processes: then 503 at once)
    boolean confines = !"none".equals(fleet.get("/api/v1/nodes/s1").body().getJsonObject("confinement").getString("mode"));
    Response parked = fleet.post("/api/v1/nodes/s1/tools/run_command", new JsonObject().put("command", "echo parks").encode());
    if (confines) {
      assertEquals(202, parked.status(), parked.body().encode());
      assertTrue(pendingApprovals().contains(parked.body().getString("approvalId")));
      assertEquals(200, fleet.deny(parked.body().getString("approvalId"), "test done").status());
    } else {
      assertEquals(503, parked.status(), parked.body().encode());
    }
    // a file that is not there yet may be by the time a person approves: that call parks
    Response later = fleet.post("/api/v1/nodes/s1/tools/edit_file", new JsonObject()
      .put("path", fleet.dir.resolve("not-yet-" + UUID.randomUUID()).toString())
      .put("target_content", "a").put("replacement_content", "b").encode());
    assertEquals(202, later.status(), later.body().encode());
    assertEquals(200, fleet.deny(later.body().getString("approvalId"), "test done").status());

    // a dry-run write changes nothing: answered with its diff, no approval, nothing written
    Path target = fleet.dir.resolve("dry-" + UUID.randomUUID() + ".txt");
    Response dry = fleet.post("/api/v1/nodes/s1/tools/write_file", new JsonObject().put("path", target.toString())
      .put("content", "only a diff\n").put("dry_run", true).encode());
    assertEquals(200, dry.status(), dry.body().encode());
    assertTrue(dry.body().getJsonObject("data").getString("diff").contains("+only a diff"), dry.body().encode());
    assertFalse(Files.exists(target), "a dry run writes nothing");
    Response dryOutside = fleet.post("/api/v1/nodes/s1/tools/write_file", new JsonObject().put("path", "/etc/fleetbus-dry")
      .put("content", "x").put("dry_run", true).encode());
    assertEquals(403, dryOutside.status(), dryOutside.body().encode());
    // a selector whose every eligible node refuses: refused at once too
    Response bySelector = fleet.post("/api/v1/calls", new JsonObject().put("tool", "run_command")
      .put("args", new JsonObject().put("command", "rm -rf " + victim)).put("labels", new JsonObject().put("pool", "dry"))
      .encode());
    assertEquals(403, bySelector.status(), bySelector.body().encode());
    assertTrue(error(bySelector).contains("allowlist"), error(bySelector));
    assertEquals(pendingBefore, pendingApprovals());
  }

  @Test
  void unprivilegedNodeRefusesCallsSentStraightToItOnTheBus() {
    for (String[] attempt : new String[][] {
      {"run_command", "{\"command\": \"echo direct\"}", "capability tier 'unprivileged'"},
      {"write_file", "{\"path\": \"/tmp/fleetbus-direct\", \"content\": \"x\"}", "capability tier 'unprivileged'"},
      {"read_file", "{\"path\": \"/etc/passwd\"}", "outside this node's path scope"}}) {
      String callId = "direct-" + UUID.randomUUID();
      // signed with the hub's own key: even a directive the node must trust meets its own tier and scope walls
      ToolCall call = hubSigned(new ToolCall(callId, null, "intruder", List.of("admin"), attempt[0],
        new JsonObject(attempt[1]), "u1", null, 10_000, false, null));
      Throwable failure = sendDirect(call);
      ReplyException re = assertInstanceOf(ReplyException.class, failure, String.valueOf(failure));
      assertEquals(403, re.failureCode(), attempt[0] + ": " + re.getMessage());
      assertTrue(re.getMessage().contains(attempt[2]), re.getMessage());
      unprivileged.awaitLine("call refused or failed \\[call: " + Pattern.quote(callId) + ", tool: " + attempt[0]
        + ", code: 403", Duration.ofSeconds(10));
    }
    assertFalse(Files.exists(Path.of("/tmp/fleetbus-direct")));
  }

  private static ToolCall hubSigned(ToolCall call) {
    try {
      return io.fleetbus.hub.auth.HubKeys.loadOrCreate(fleet.dir.resolve("hub").resolve("keys")).directiveSigner(30_000)
        .sign(call, io.fleetbus.shared.catalog.ToolCatalog.load().require(call.tool()).tier());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Sends on the bus like any cluster peer; retries only while the node's subscription is still propagating. */
  private static Throwable sendDirect(ToolCall call) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      Future<io.vertx.core.eventbus.Message<Object>> f = peer.vertx().eventBus().request(Addresses.nodeCall("u1"), call,
        new DeliveryOptions().setSendTimeout(10_000));
      try {
        io.vertx.core.eventbus.Message<Object> reply = f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        if (reply.headers().contains(io.fleetbus.shared.bus.FleetReplies.PROVEN_FAILURE)) {
          // the node proves its refusals: an error result instead of a bare bus failure
          io.fleetbus.shared.msg.ToolResult refusal = (io.fleetbus.shared.msg.ToolResult) reply.body();
          return new ReplyException(ReplyFailure.RECIPIENT_FAILURE, refusal.errorCode(), refusal.errorMessage());
        }
        throw new AssertionError(call.tool() + " sent directly was answered instead of refused");
      } catch (java.util.concurrent.ExecutionException e) {
        Throwable cause = e.getCause();
        boolean noHandlers = cause instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS;
        if (!noHandlers || System.nanoTime() > deadline) {
          return cause;
        }
      } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
        throw new AssertionError(e);
      }
    }
  }

  @Test
  void aToolOnAPlatformThatLacksItIs400() throws Exception {
    NodeHello hello = new NodeHello("winbox", UUID.randomUUID().toString(),
      peer.clusterManager().getHazelcastInstance().getCluster().getLocalMember().getUuid().toString(), "windows", "root",
      new JsonObject(), "0.1.0", List.of("get_service_status"), null);
    io.fleetbus.node.trust.NodeTrust trust = io.fleetbus.node.trust.NodeTrust.load("winbox",
      java.nio.file.Files.createTempDirectory("winbox"), fleet.enrollmentToken("winbox"),
      io.fleetbus.shared.catalog.ToolCatalog.load());
    io.fleetbus.node.trust.NodeTrust.Hello sent = trust.hello(hello);
    NodeRegistered reg = peer.vertx().eventBus().<NodeRegistered>request(Addresses.HUB_REGISTER, sent.hello(),
        new DeliveryOptions().setSendTimeout(20_000))
      .toCompletionStage().toCompletableFuture().get(25, TimeUnit.SECONDS).body();
    trust.accept(sent, reg);
    peer.vertx().eventBus().publish(Addresses.HEARTBEAT, trust.prove(new io.fleetbus.shared.msg.Heartbeat("winbox",
      hello.instanceId(), 1, System.currentTimeMillis(), null, null)));
    hub.awaitLine(TestFleet.onlineLine("winbox"), TestFleet.START);
    Response r = fleet.post("/api/v1/nodes/winbox/tools/get_service_status", "{\"service_name\": \"Spooler\"}");
    assertEquals(400, r.status(), r.body().encode());
    assertEquals("`get_service_status` is not available on `windows`", error(r));
  }

  @Test
  void hubToolsAnswerWithoutANode() {
    Response nodes = fleet.post("/api/v1/tools/list_nodes", "{\"capability_tier\": \"unprivileged\"}");
    assertEquals(200, nodes.status(), nodes.body().encode());
    JsonArray list = nodes.body().getJsonObject("data").getJsonArray("nodes");
    assertEquals(List.of("u1"), list.stream().map(n -> ((JsonObject) n).getString("nodeId")).toList());

    Response search = fleet.post("/api/v1/tools/aegis.tools.search", "{\"query\": \"grep\"}");
    assertEquals("grep_files", search.body().getJsonObject("data").getJsonArray("tools").getJsonObject(0).getString("name"));

    Response schema = fleet.post("/api/v1/tools/get_tool_schema", "{\"tool\": \"fs.read\"}");
    assertEquals("read_file", schema.body().getJsonObject("data").getString("name"));
    assertTrue(schema.body().getJsonObject("data").getJsonObject("inputSchema").getJsonObject("properties").containsKey("offset"));

    Response invalid = fleet.post("/api/v1/tools/validate_args", "{\"tool\": \"read_file\", \"args\": {\"limit\": 0}}");
    JsonObject v = invalid.body().getJsonObject("data");
    assertFalse(v.getBoolean("valid"));
    assertTrue(v.getJsonArray("errors").getString(0).contains("'limit'"), v.encode());
    JsonObject valid = fleet.post("/api/v1/tools/validate_args", "{\"tool\": \"fs.read\", \"args\": {\"path\": \"/x\"}}")
      .body().getJsonObject("data");
    assertTrue(valid.getBoolean("valid"), valid.encode());
    assertEquals(2000, valid.getJsonObject("args").getInteger("limit"), "defaults filled in");

    Response logs = fleet.post("/api/v1/tools/get_site_logs", "{\"action\": \"node.online\"}");
    assertEquals(200, logs.status(), logs.body().encode());
    JsonArray events = logs.body().getJsonObject("data").getJsonArray("events");
    assertTrue(events.stream().anyMatch(e -> "u1".equals(((JsonObject) e).getString("nodeId"))), events.encode());

    assertEquals(400, fleet.post("/api/v1/tools/read_file", "{\"path\": \"/tmp\"}").status());
    assertEquals(400, fleet.post("/api/v1/nodes/s1/tools/list_nodes", "{}").status());
    assertEquals(400, fleet.post("/api/v1/tools/list_nodes", "{\"online\": \"yes\"}").status());
  }

  @Test
  void readOnlyToolsAnswerFromTheRealNodes() {
    Response net = fleet.post("/api/v1/nodes/u1/tools/get_network_info", "{}");
    assertEquals(200, net.status(), net.body().encode());
    assertTrue(net.body().getJsonObject("data").getInteger("count") > 0);
    Response conf = fleet.post("/api/v1/nodes/u1/tools/get_agent_config", "{}");
    assertEquals("unprivileged", conf.body().getJsonObject("data").getString("capabilityTier"));
    Response logs = fleet.post("/api/v1/nodes/s1/tools/get_agent_logs", "{\"max_lines\": 20}");
    assertEquals(200, logs.status(), logs.body().encode());
    assertTrue(logs.body().getJsonObject("data").getJsonArray("lines").stream()
      .anyMatch(l -> l.toString().contains("call received")), logs.body().encode());
    Response events = fleet.post("/api/v1/nodes/u1/tools/get_event_logs", "{}");
    assertEquals(503, events.status(), events.body().encode());
    assertTrue(error(events).startsWith("not available on this node: "), error(events));
  }
}
