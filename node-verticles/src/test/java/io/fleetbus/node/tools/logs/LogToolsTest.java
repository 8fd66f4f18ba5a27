package io.fleetbus.node.tools.logs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.Samples;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogToolsTest {
  @TempDir
  Path dir;

  @Test
  void tailReadsOnlyTheLastLines() throws Exception {
    Path f = dir.resolve("big.log");
    Files.writeString(f, IntStream.rangeClosed(1, 100_000).mapToObj(i -> "line " + i).collect(Collectors.joining("\n")) + "\n");
    assertEquals(List.of("line 99998", "line 99999", "line 100000"), LogTail.last(f, 3));
    Files.writeString(f, "only\r\nno newline at end");
    assertEquals(List.of("only", "no newline at end"), LogTail.last(f, 10));
    Files.writeString(f, "");
    assertEquals(List.of(), LogTail.last(f, 10));
  }

  private JsonObject readLogs(NodeSettings s, JsonObject args) throws Exception {
    ReadLogsTool tool = new ReadLogsTool(PathScope.of(s), s.tools().logPaths(), s.tools().logMaxLines());
    return TestNode.run(tool, "read_logs", args, s);
  }

  @Test
  void readLogsFiltersExtractsJsonFieldsAndMasksSecrets() throws Exception {
    Path logs = Files.createDirectories(dir.resolve("logs"));
    Path f = logs.resolve("app.log");
    Files.writeString(f, String.join("\n",
      "{\"level\":\"info\",\"msg\":\"started\",\"ctx\":{\"user\":\"ann\"}}",
      "plain ERROR line with token=abc123secret",
      "{\"level\":\"error\",\"msg\":\"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl\"}",
      "ok line") + "\n");
    NodeSettings s = TestNode.settings("sudo", dir, new JsonObject().put("logs",
      new JsonObject().put("paths", new JsonArray().add(logs + "/*.log"))));
    JsonObject errors = readLogs(s, new JsonObject().put("path", f.toString()).put("filter", "ERROR|error").put("regex", true));
    assertEquals(2, errors.getInteger("filtered"));
    assertEquals(4, errors.getInteger("total"));
    assertEquals("plain ERROR line with token=***MASKED***", errors.getJsonArray("lines").getString(0));
    assertFalse(errors.encode().contains("eyJhbGci"), errors.encode());
    JsonObject users = readLogs(s, new JsonObject().put("path", f.toString()).put("jsonField", "ctx.user"));
    assertEquals(new JsonArray().add("ann"), users.getJsonArray("lines"));
    JsonObject last = readLogs(s, new JsonObject().put("path", f.toString()).put("lines", 1).put("filter", "ok"));
    assertEquals(new JsonArray().add("ok line"), last.getJsonArray("lines"));
  }

  @Test
  void readLogsOnlyReadsFilesTheGlobsAllow() throws Exception {
    Path logs = Files.createDirectories(dir.resolve("logs"));
    Files.writeString(logs.resolve("app.log"), "x\n");
    Path other = Files.writeString(dir.resolve("notes.txt"), "private\n");
    Files.createSymbolicLink(logs.resolve("sneaky.log"), other);
    NodeSettings s = TestNode.settings("sudo", dir, new JsonObject().put("logs",
      new JsonObject().put("paths", new JsonArray().add(logs + "/*.log"))));
    FleetException e = assertThrows(FleetException.class, () -> readLogs(s, new JsonObject().put("path", other.toString())));
    assertEquals(FailureCode.FORBIDDEN, e.code());
    assertTrue(e.getMessage().contains("logs.paths"), e.getMessage());
    FleetException link = assertThrows(FleetException.class,
      () -> readLogs(s, new JsonObject().put("path", logs + "/sneaky.log")));
    assertEquals(FailureCode.FORBIDDEN, link.code(), "a link inside the log folder to another file is refused");
  }

  @Test
  void agentLogsFilterByLevelKeepingStackTraceLinesWithTheirEntry() throws Exception {
    NodeSettings s = TestNode.settings("unprivileged", dir, null);
    Path log = AgentLogFile.of(s.dataDir());
    Files.createDirectories(log.getParent());
    Files.writeString(log, String.join("\n",
      "2024-01-01T10:00:00.000 INFO  [main] NodeMain - started",
      "2024-01-01T10:00:01.000 ERROR [w-1] ToolDispatcher - tool failed password=swordfish",
      "java.lang.IllegalStateException: boom",
      "\tat x.y.Z(Z.java:1)",
      "2024-01-01T10:00:02.000 WARN  [w-1] NodeAgentVerticle - retrying",
      "2024-01-01T10:00:03.000 DEBUG [w-1] X - noise") + "\n");
    JsonObject warn = TestNode.run(new AgentLogsTool(), "get_agent_logs", new JsonObject().put("level", "WARNING"), s);
    JsonArray lines = warn.getJsonArray("lines");
    assertEquals(4, lines.size(), lines.encodePrettily());
    assertTrue(lines.getString(0).endsWith("password=***MASKED***"), lines.getString(0));
    assertTrue(lines.getString(3).contains("retrying"));
    JsonObject two = TestNode.run(new AgentLogsTool(), "get_agent_logs", new JsonObject().put("max_lines", 2), s);
    assertEquals(2, two.getInteger("count"));
  }

  @Test
  void journalSampleParsesWithLevelsMaskingAndACutLastLine() {
    JsonArray events = JournalEntries.parse(Samples.read("journalctl-json.txt"));
    assertEquals(3, events.size(), "the line cut by the output cap is skipped");
    JsonObject ssh = events.getJsonObject(0);
    assertEquals("2023-11-14T22:13:20.123456Z", ssh.getString("time"));
    assertEquals("information", ssh.getString("level"));
    assertEquals("ssh.service", ssh.getString("unit"));
    assertEquals("sshd", ssh.getString("process"));
    assertEquals(812, ssh.getInteger("pid"));
    assertEquals("error", events.getJsonObject(1).getString("level"));
    assertTrue(events.getJsonObject(1).getString("message").contains("password=***MASKED***"));
    assertTrue(events.getJsonObject(2).getString("message").startsWith("warn: "), "byte-array messages decoded");
  }

  @Test
  void journalctlArgumentsFollowTheFilters() {
    List<String> argv = EventLogsTool.argv("journalctl", new JsonObject().put("unit", "nginx.service").put("level", "Error")
      .put("process_name", "nginx").put("hours_back", 2).put("max_events", 10).put("log_name", "Security"),
      LocalDateTime.of(2024, 5, 1, 12, 0));
    assertTrue(argv.containsAll(List.of("-n", "10", "--since", "2024-05-01 10:00:00", "--priority=err",
      "--unit=nginx.service", "--identifier=nginx", "SYSLOG_FACILITY=4", "SYSLOG_FACILITY=10")), argv.toString());
  }

  @Test
  void eventLogsSayWhyTheyAreNotAvailable() {
    NodeSettings s = TestNode.settings("sudo", dir, null);
    HostCommands host = new HostCommands(true, new ProcessRunner(1024), List.of(dir));
    FleetException noBinary = assertThrows(FleetException.class,
      () -> TestNode.run(new EventLogsTool(host), "get_event_logs", new JsonObject(), s));
    assertEquals(FailureCode.NO_ELIGIBLE_NODE, noBinary.code());
    assertTrue(noBinary.getMessage().startsWith("not available on this node: "), noBinary.getMessage());
    HostCommands real = new HostCommands(true, new ProcessRunner(1024));
    org.junit.jupiter.api.Assumptions.assumeTrue(real.find("journalctl").isPresent());
    FleetException noJournal = assertThrows(FleetException.class, () -> TestNode.run(
      new EventLogsTool(real, List.of(dir.resolve("no-journal"))), "get_event_logs", new JsonObject(), s));
    assertTrue(noJournal.getMessage().contains("no systemd journal"), noJournal.getMessage());
    FleetException unprivileged = assertThrows(FleetException.class, () -> TestNode.run(
      new EventLogsTool(new HostCommands(false, null)), "get_event_logs", new JsonObject(), s));
    assertTrue(unprivileged.getMessage().contains("starts no processes"), unprivileged.getMessage());
  }

  /** Issue 19, item 10: the seed's event_id is accepted; the answer says the journal cannot filter by it. */
  @Test
  void eventIdIsAcceptedAndNamedAsNotSupported() throws Exception {
    NodeSettings s = TestNode.settings("sudo", dir, null);
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path sample = dir.resolve("journal.txt");
    Files.writeString(sample, Samples.read("journalctl-json.txt"));
    Path journalctl = bin.resolve("journalctl");
    Files.writeString(journalctl, "#!/bin/sh\ncat '" + sample + "'\n");
    assertTrue(journalctl.toFile().setExecutable(true));
    EventLogsTool tool = new EventLogsTool(new HostCommands(true, new ProcessRunner(1024 * 1024), List.of(bin)),
      List.of(dir));
    JsonObject plain = TestNode.run(tool, "get_event_logs", new JsonObject(), s);
    JsonObject withId = TestNode.run(tool, "get_event_logs_filtered", new JsonObject().put("log_name", "System")
      .put("event_id", 41), s);
    assertEquals(plain.getInteger("count"), withId.getInteger("count"), "not filtered by it");
    assertFalse(plain.containsKey("unsupported"), plain.encode());
    String note = withId.getJsonObject("unsupported").getString("event_id");
    assertTrue(note.startsWith("not supported on " + NodeSettings.platform() + ": ") && note.contains("NOT filtered"), note);
  }
}
