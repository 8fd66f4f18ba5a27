package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.cli.FleetbusCli;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The fleetbus CLI against a real hub and node: output, the approval step, and exit codes that follow failure codes. */
@Timeout(180)
class CliTest {
  static TestFleet fleet;

  record Run(int exit, String out, String err) {
    JsonObject json() {
      return new JsonObject(out);
    }
  }

  @BeforeAll
  static void startFleet() {
    fleet = new TestFleet(1000);
    FleetProcess hub = fleet.startHub();
    fleet.startNode("n1", "sudo", new JsonObject().put("allowlist", new JsonArray().add("echo")));
    hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
  }

  @AfterAll
  static void stopFleet() {
    if (fleet != null) {
      fleet.close();
    }
  }

  static Run cliAs(String token, String... args) {
    List<String> all = new ArrayList<>(List.of("--url", "http://127.0.0.1:" + fleet.httpPort));
    if (token != null) {
      all.addAll(List.of("--token", token));
    }
    all.addAll(List.of(args));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = FleetbusCli.run(all.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(exit, out.toString(), err.toString());
  }

  static Run cli(String... args) {
    return cliAs(fleet.token(), args);
  }

  @Test
  void listsAndCallsWithArgumentsParsedAsJson() {
    Run nodes = cli("nodes");
    assertEquals(0, nodes.exit(), nodes.err());
    assertTrue(nodes.json().getJsonArray("nodes").encode().contains("\"n1\""));
    Run tools = cli("tools");
    assertTrue(tools.out().contains("run_command"));
    Run call = cli("call", "n1", "get_running_processes", "--arg", "limit=3");
    assertEquals(0, call.exit(), call.err());
    assertEquals(3, call.json().getJsonObject("data").getJsonArray("processes").size());
    Run json = cli("call", "n1", "get_running_processes", "--json", "{\"limit\": 2}");
    assertEquals(2, json.json().getJsonObject("data").getJsonArray("processes").size());
  }

  @Test
  void exitCodesFollowFailureCodes() {
    Run bad = cli("call", "n1", "get_running_processes", "--arg", "limit=0");
    assertEquals(100, bad.exit(), bad.err());
    assertTrue(bad.err().contains("400") && bad.err().contains("limit"), bad.err());
    assertEquals(104, cli("call", "nowhere", "get_agent_health").exit());
    assertEquals(104, cli("call", "n1", "format_everything").exit());
    assertEquals(101, cliAs(null, "nodes").exit());
    assertEquals(101, cliAs("not-a-jwt", "nodes").exit());
    assertEquals(2, cli("call", "n1").exit(), "usage errors are 2");
    StringWriter err = new StringWriter();
    int unreachable = FleetbusCli.run(new String[] {"--url", "http://127.0.0.1:" + TestFleet.freePort(), "--token", "x",
      "nodes"}, new PrintWriter(new StringWriter()), new PrintWriter(err, true));
    assertEquals(1, unreachable, err.toString());
  }

  @Test
  void tier3IsPendingUntilApprovedOrDenied() {
    Run pending = cli("call", "n1", "run_command", "--arg", "command=echo from-cli");
    assertEquals(3, pending.exit(), pending.err());
    String approvalId = pending.json().getString("approvalId");
    String callId = pending.json().getString("callId");
    assertTrue(cli("approvals", "--status", "pending").out().contains(approvalId));
    assertEquals(0, cliAs(fleet.approverToken(), "approve", approvalId, "--reason", "cli test").exit());
    Run result = cli("result", callId, "--wait", "20");
    assertEquals(0, result.exit(), result.err());
    assertEquals("from-cli\n", result.json().getJsonObject("data").getString("stdout"));

    Run second = cli("call", "n1", "run_command", "--arg", "command=echo never");
    assertEquals(0, cliAs(fleet.approverToken(), "deny", second.json().getString("approvalId"), "--reason", "not now").exit());
    Run denied = cli("result", second.json().getString("callId"), "--wait", "10");
    assertEquals(103, denied.exit(), denied.out() + denied.err());
  }

  @Test
  void runsFromTheHubMainClassAsJavaDashJarWould() throws IOException, InterruptedException {
    assertEquals(0, hubMainCli("nodes"));
    assertEquals(104, hubMainCli("call", "nowhere", "get_agent_health"));
  }

  private static int hubMainCli(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
      System.getProperty("java.class.path"), "io.fleetbus.hub.HubMain", "cli", "--url",
      "http://127.0.0.1:" + fleet.httpPort));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("FLEETBUS_TOKEN", fleet.token());
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), output);
    return p.exitValue();
  }
}
