package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.cli.FleetbusCli;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** The fleetbus CLI against a real hub and node: output, the approval step, and exit codes that follow failure codes. */
@Timeout(180)
@Tag("cluster")
class CliTest {
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
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
    fleet.startNode("n1", "sudo", new JsonObject().put("allowlist", new JsonArray().add("echo").add("sleep")));
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
    Run nodes = cli("--json", "nodes");
    assertEquals(0, nodes.exit(), nodes.err());
    assertTrue(nodes.json().getJsonArray("nodes").encode().contains("\"n1\""));
    Run tools = cli("tools");
    assertTrue(tools.out().contains("run_command"));
    Run call = cli("call", "n1", "get_running_processes", "--arg", "limit=3", "--json");
    assertEquals(0, call.exit(), call.err());
    assertEquals(3, call.json().getJsonObject("data").getJsonArray("processes").size());
    Run json = cli("--json", "call", "n1", "get_running_processes", "--args", "{\"limit\": 2}");
    assertEquals(2, json.json().getJsonObject("data").getJsonArray("processes").size());
  }

  @Test
  void answersPrintAsTablesWithReadableTimes() {
    Run nodes = cli("nodes");
    assertEquals(0, nodes.exit(), nodes.err());
    List<String> lines = nodes.out().lines().toList();
    assertTrue(lines.get(0).matches("NODE +STATE +TIER +PLATFORM +LABELS +CPU +MEMORY USED +DISK FREE +LAST HEARTBEAT"),
      nodes.out());
    String row = lines.stream().filter(l -> l.startsWith("n1 ")).findFirst().orElseThrow(() -> new AssertionError(nodes.out()));
    assertTrue(row.matches("n1 +online +sudo +linux .* GB .*"), row);
    assertRecent(row);
    assertEquals("1 of 1 node online", lines.get(lines.size() - 1));

    Run one = cli("nodes", "n1");
    assertTrue(one.out().matches("(?s)node +n1\n.*state +online\n.*uptime +\\d.*"), one.out());
    assertTrue(one.out().matches("(?s).*\nWHEN +LIFECYCLE +REASON\n.*registered.*online.*"), one.out());
    assertRecent(one.out().lines().filter(l -> l.startsWith("last heartbeat")).findFirst().orElseThrow());

    Run call = cli("call", "n1", "get_running_processes", "--arg", "limit=3");
    assertEquals(0, call.exit(), call.err());
    assertTrue(call.out().startsWith("ok · node n1 · "), call.out());
    List<String> table = call.out().lines().dropWhile(l -> !l.equals("processes (3)")).toList();
    assertEquals(5, table.size(), "a header and three rows: " + call.out());
    assertTrue(table.get(1).matches("PID +NAME .*"), table.get(1));
  }

  /** The line shows a local time within a minute of now, followed by how long ago it was. */
  private static void assertRecent(String line) {
    Matcher m = Pattern.compile("(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d) \\((just now|\\d+ s ago)\\)").matcher(line);
    assertTrue(m.find(), "no readable time in: " + line);
    long at = LocalDateTime.parse(m.group(1), STAMP).atZone(ZoneId.systemDefault()).toInstant().toEpochMilli();
    assertTrue(Math.abs(System.currentTimeMillis() - at) < 60_000, line);
  }

  @Test
  void everySubcommandHasHelp() {
    List<String> paths = new ArrayList<>();
    collect(new CommandLine(new FleetbusCli()), "", paths);
    assertTrue(paths.containsAll(List.of("nodes", "tools", "call", "result", "cancel", "approvals", "approve", "deny",
      "enroll", "rekey", "audit", "audit verify")), paths.toString());
    for (String path : paths) {
      List<String> args = new ArrayList<>(List.of(path.split(" ")));
      args.add("--help");
      Run help = cliAs(null, args.toArray(String[]::new));
      assertEquals(0, help.exit(), path + ": " + help.err());
      assertTrue(help.out().startsWith("Usage: fleetbus " + path + " "), help.out());
      assertTrue(help.out().contains("--json") && help.out().contains("Exit codes:"), help.out());
      Run viaHelp = cliAs(null, ("help " + path).split(" "));
      assertEquals(help.out(), viaHelp.out(), "fleetbus help " + path);
    }
  }

  private static void collect(CommandLine cmd, String prefix, List<String> paths) {
    cmd.getSubcommands().forEach((name, sub) -> {
      if (!name.equals("help")) {
        paths.add(prefix + name);
        collect(sub, prefix + name + " ", paths);
      }
    });
  }

  @Test
  void aHubThatIsDownIsNamedWithTheReason() {
    String url = "http://127.0.0.1:" + TestFleet.freePort();
    StringWriter err = new StringWriter();
    int exit = FleetbusCli.run(new String[] {"--url", url, "--token", "x", "nodes"}, new PrintWriter(new StringWriter()),
      new PrintWriter(err, true));
    assertEquals(1, exit, err.toString());
    assertEquals("fleetbus: cannot reach the hub at " + url + ": connection refused", err.toString().strip());
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
    Run pending = cli("--json", "call", "n1", "run_command", "--arg", "command=echo from-cli");
    assertEquals(3, pending.exit(), pending.err());
    String approvalId = pending.json().getString("approvalId");
    String callId = pending.json().getString("callId");
    assertTrue(cli("approvals", "--status", "pending").out().contains(approvalId));
    assertEquals(0, cliAs(fleet.approverToken(), "approve", approvalId, "--reason", "cli test").exit());
    Run result = cli("--json", "result", callId, "--wait", "20");
    assertEquals(0, result.exit(), result.err());
    assertEquals("from-cli\n", result.json().getJsonObject("data").getString("stdout"));
    Run shown = cli("result", callId);
    assertTrue(shown.out().matches("(?s)call +" + callId + "\nstatus +ok\n.*approval +" + approvalId + "\n.*--- stdout\nfrom-cli\n"),
      shown.out());

    Run second = cli("--json", "call", "n1", "run_command", "--arg", "command=echo never");
    assertEquals(0, cliAs(fleet.approverToken(), "deny", second.json().getString("approvalId"), "--reason", "not now").exit());
    Run denied = cli("result", second.json().getString("callId"), "--wait", "10");
    assertEquals(103, denied.exit(), denied.out() + denied.err());
  }

  /** fleetbus jobs: a short list with local times, a job's output as text, a cancel (issue 33). */
  @Test
  void jobsListLogsAndCancel() {
    String done = launchJob("echo out-1; echo err-1 >&2; echo out-2", "cli-job");
    Run waited = cli("--json", "call", "n1", "job_wait", "--arg", "job_id=" + done, "--arg", "timeout_seconds=20");
    assertEquals("completed", waited.json().getJsonObject("data").getString("status"), waited.out());
    Run list = cli("jobs", "list", "n1");
    assertEquals(0, list.exit(), list.err());
    List<String> lines = list.out().lines().toList();
    assertTrue(lines.get(0).matches("JOB +STATUS +STARTED +RAN +EXIT +WHAT"), list.out());
    String row = lines.stream().filter(l -> l.startsWith(done)).findFirst().orElseThrow(() -> new AssertionError(list.out()));
    assertTrue(row.matches(".* completed +.* 0 +cli-job"), row);
    assertRecent(row);
    Run logs = cli("jobs", "logs", "n1", done);
    assertEquals(0, logs.exit(), logs.err());
    assertTrue(logs.out().contains("out-1\n") && logs.out().contains("err| err-1\n") && logs.out().contains("out-2\n"),
      logs.out());
    assertTrue(logs.out().contains("-- job " + done + " completed, lines 0-2 of 3; that is all so far"), logs.out());
    String running = launchJob("sleep 300", "sleeper");
    Run cancel = cli("jobs", "cancel", "n1", running);
    assertEquals(0, cancel.exit(), cancel.err());
    assertTrue(cancel.out().matches("(?s)job +" + running + "\nstatus +cancelled\n.*"), cancel.out());
    assertTrue(cli("jobs", "list", "n1", "--status", "cancelled").out().contains(running));
    assertEquals(104, cli("jobs", "logs", "n1", "no-such-job").exit(), "404 → 104");
  }

  /** job_launch is tier 3: asked by the admin, approved by the second person, its job id from the call's result. */
  private static String launchJob(String command, String label) {
    Run pending = cli("--json", "call", "n1", "job_launch", "--arg", "command=" + command, "--arg", "label=" + label);
    assertEquals(3, pending.exit(), pending.err());
    assertEquals(0, cliAs(fleet.approverToken(), "approve", pending.json().getString("approvalId"), "--reason", "jobs").exit());
    Run result = cli("--json", "result", pending.json().getString("callId"), "--wait", "20");
    assertEquals(0, result.exit(), result.err());
    return result.json().getJsonObject("data").getString("jobId");
  }

  @Test
  void auditFiltersBySinceAndOutcome() {
    Run ok = cli("--json", "call", "n1", "get_agent_health");
    assertEquals(0, ok.exit(), ok.err());
    String okCall = ok.json().getString("callId");
    Run parked = cli("--json", "call", "n1", "run_command", "--arg", "command=echo audit-filter");
    String deniedCall = parked.json().getString("callId");
    assertEquals(0, cliAs(fleet.approverToken(), "deny", parked.json().getString("approvalId"), "--reason", "filter").exit());
    assertEquals(103, cli("result", deniedCall, "--wait", "10").exit(), "the denied call has ended");

    JsonObject okRecord = record(audit("--since", "10m"), okCall);
    JsonObject deniedRecord = record(audit("--since", "10m"), deniedCall);
    assertTrue(deniedRecord.getLong("at") >= okRecord.getLong("at"), deniedRecord.encode());
    // a moment: from just after the ok call's record on, it is left out; the denied call (later) stays
    JsonArray after = audit("--since", Long.toString(okRecord.getLong("at") + 1));
    assertTrue(ids(after).contains(deniedCall) || deniedRecord.getLong("at").equals(okRecord.getLong("at")), after.encode());
    assertFalse(ids(after).contains(okCall), after.encode());
    // a local time to the second, and an ISO instant, include what came at or after it
    String local = LocalDateTime.ofInstant(Instant.ofEpochMilli(okRecord.getLong("at")), ZoneId.systemDefault()).format(STAMP);
    assertTrue(ids(audit("--since", local)).containsAll(List.of(okCall, deniedCall)));
    assertTrue(ids(audit("--since", Instant.ofEpochMilli(okRecord.getLong("at")).toString())).contains(okCall));
    assertTrue(audit("--since", Instant.ofEpochMilli(deniedRecord.getLong("at") + 1).toString()).stream()
      .allMatch(r -> ((JsonObject) r).getLong("at") > deniedRecord.getLong("at")));

    JsonArray denied = audit("--since", "10m", "--outcome", "denied");
    assertTrue(ids(denied).contains(deniedCall), denied.encode());
    assertTrue(denied.stream().allMatch(r -> "denied".equals(((JsonObject) r).getString("decision"))), denied.encode());
    JsonArray oks = audit("--since", "10m", "--outcome", "ok");
    assertTrue(ids(oks).contains(okCall) && !ids(oks).contains(deniedCall), oks.encode());
    assertTrue(oks.stream().allMatch(r -> "ok".equals(((JsonObject) r).getString("outcome"))), oks.encode());

    Run table = cli("audit", "--since", "10m", "--outcome", "denied", "--tool", "run_command");
    assertEquals(0, table.exit(), table.err());
    assertTrue(table.out().lines().findFirst().orElse("").matches("# +WHEN +WHO +NODE +TOOL +TIER +DECISION +OUTCOME +MS +CALL"),
      table.out());
    String row = table.out().lines().filter(l -> l.endsWith(deniedCall)).findFirst().orElseThrow(() -> new AssertionError(table.out()));
    assertTrue(row.contains("denied by dev-approver") && row.contains("error 403"), row);
    assertRecent(row);

    Run badSince = cli("audit", "--since", "last tuesday");
    assertEquals(2, badSince.exit());
    assertTrue(badSince.err().contains("neither a duration"), badSince.err());
    Run badOutcome = cli("audit", "--outcome", "great");
    assertEquals(2, badOutcome.exit());
    assertTrue(badOutcome.err().contains("none of ok, error, cancelled"), badOutcome.err());
  }

  private static JsonArray audit(String... filters) {
    List<String> args = new ArrayList<>(List.of("--json", "audit", "--limit", "1000"));
    args.addAll(List.of(filters));
    Run run = cli(args.toArray(String[]::new));
    assertEquals(0, run.exit(), run.err());
    return run.json().getJsonArray("records");
  }

  private static JsonObject record(JsonArray records, String callId) {
    return records.stream().map(JsonObject.class::cast).filter(r -> callId.equals(r.getString("callId"))).findFirst()
      .orElseThrow(() -> new AssertionError("no audit record of " + callId + ": " + records.encode()));
  }

  private static List<String> ids(JsonArray records) {
    return records.stream().map(r -> ((JsonObject) r).getString("callId")).toList();
  }

  @Test
  void auditVerifySaysWhetherTheChainHolds() throws Exception {
    assertEquals(0, cli("call", "n1", "get_agent_health").exit(), "at least one record");
    Run intact = cliAs(fleet.approverToken(), "audit", "verify");
    assertEquals(0, intact.exit(), intact.out() + intact.err());
    assertTrue(intact.out().startsWith("audit chain intact: "), intact.out());
    JsonObject tip = audit().getJsonObject(0);
    long seq = tip.getLong("seq");
    Path db = fleet.dir.resolve("hub").resolve("fleetbus.db");
    // alter one record behind the hub's back (as someone with the file would), then put it back as it was
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
      s.execute("PRAGMA busy_timeout=10000");
      s.execute("DROP TRIGGER audit_no_update");
      try {
        assertEquals(1, s.executeUpdate("UPDATE audit SET principal = 'someone-else' WHERE seq = " + seq));
        Run broken = cliAs(fleet.approverToken(), "audit", "verify");
        assertEquals(4, broken.exit(), broken.out() + broken.err());
        assertTrue(broken.out().startsWith("audit chain BROKEN at record #" + seq + ": its content does not match its hash"),
          broken.out());
        Run json = cliAs(fleet.approverToken(), "--json", "audit", "verify");
        assertEquals(4, json.exit());
        assertFalse(json.json().getBoolean("ok"), json.out());
        assertEquals(seq, json.json().getJsonObject("firstBroken").getLong("seq"));
      } finally {
        s.executeUpdate("UPDATE audit SET principal = '" + tip.getString("principal") + "' WHERE seq = " + seq);
        s.execute("CREATE TRIGGER IF NOT EXISTS audit_no_update BEFORE UPDATE ON audit"
          + " BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END");
      }
    }
    assertEquals(0, cliAs(fleet.approverToken(), "audit", "verify").exit(), "intact again once restored");
    Run viewer = cliAs(fleet.mintToken("vera", "viewer"), "audit", "verify");
    assertEquals(103, viewer.exit(), "the chain check is for approvers and admins: " + viewer.err());
  }

  @Test
  void runsFromTheHubMainClassAsJavaDashJarWould() throws IOException, InterruptedException {
    assertEquals(0, hubMainCli("nodes"));
    assertEquals(104, hubMainCli("call", "nowhere", "get_agent_health"));
  }

  private static int hubMainCli(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
      System.getProperty("java.class.path"), "io.fleetbus.hub.boot.HubMain", "cli", "--url",
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
