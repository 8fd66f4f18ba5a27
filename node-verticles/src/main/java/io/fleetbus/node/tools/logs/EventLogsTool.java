package io.fleetbus.node.tools.logs;

import io.fleetbus.node.tools.Unsupported;
import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** get_event_logs on Linux: the systemd journal through journalctl, newest entries last. */
public final class EventLogsTool implements ToolHandler {
  private static final Map<String, String> PRIORITY = Map.of("critical", "crit", "error", "err", "warning", "warning",
    "information", "info", "verbose", "debug");
  private static final List<Path> JOURNAL_DIRS = List.of(Path.of("/var/log/journal"), Path.of("/run/log/journal"));
  private static final int OUTPUT_CAP = 2 * 1024 * 1024;

  private final HostCommands host;
  private final List<Path> journalDirs;

  public EventLogsTool(HostCommands host) {
    this(host, JOURNAL_DIRS);
  }

  EventLogsTool(HostCommands host, List<Path> journalDirs) {
    this.host = host;
    this.journalDirs = List.copyOf(journalDirs);
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws Exception {
    Path journalctl = host.require("journalctl", "get_event_logs");
    if (journalDirs.stream().noneMatch(Files::isDirectory)) {
      throw FailureCode.NO_ELIGIBLE_NODE.exception("not available on this node: there is no systemd journal here ("
        + journalDirs + " do not exist)");
    }
    List<String> argv = argv(journalctl.toString(), args, LocalDateTime.now());
    JsonObject r = host.run(argv, 30_000, OUTPUT_CAP);
    Integer exit = r.getInteger("exitCode");
    if (exit == null || exit != 0) {
      throw FailureCode.TOOL_FAILED.exception("journalctl failed (exit " + exit + "): " + tail(r.getString("stderr")));
    }
    JsonArray events = JournalEntries.parse(r.getString("stdout"));
    JsonObject result = new JsonObject().put("source", "journald").put("events", events).put("count", events.size())
      .put("truncated", r.getBoolean("truncated", false));
    // the seed's Windows event id (41 unexpected shutdown, 1000 application crash …) has no journal counterpart
    return Unsupported.note(result, args, "event_id", "journal entries carry no Windows event id, so these entries are"
      + " NOT filtered by it; narrow them with unit, process_name, level or log_name");
  }

  static List<String> argv(String journalctl, JsonObject args, LocalDateTime now) {
    List<String> argv = new ArrayList<>(List.of(journalctl, "--no-pager", "--quiet", "-o", "json",
      "--output-fields=MESSAGE,PRIORITY,_SYSTEMD_UNIT,SYSLOG_IDENTIFIER,_COMM,_PID",
      "-n", String.valueOf(args.getInteger("max_events", 50)),
      "--since", now.minusHours(args.getInteger("hours_back", 24)).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"))));
    if (args.getString("level") != null) {
      argv.add("--priority=" + PRIORITY.get(args.getString("level").toLowerCase(Locale.ROOT)));
    }
    if (args.getString("unit") != null) {
      argv.add("--unit=" + args.getString("unit"));
    }
    if (args.getString("process_name") != null) {
      argv.add("--identifier=" + args.getString("process_name"));
    }
    if ("Security".equals(args.getString("log_name"))) {
      // on Linux the security log is the auth and authpriv syslog facilities (two values of one field: OR)
      argv.add("SYSLOG_FACILITY=4");
      argv.add("SYSLOG_FACILITY=10");
    }
    return argv;
  }

  private static String tail(String s) {
    return s == null ? "" : s.length() > 500 ? s.substring(s.length() - 500) : s.strip();
  }
}
