package io.fleetbus.hub.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * {@code fleetbus}: the REST API from a shell ({@code java -jar hub.jar cli …} or {@code scripts/fleetbus …}).
 * Exit codes follow the failure codes: see {@link HubClient#exitCode(int)}.
 */
@Command(name = "fleetbus", mixinStandardHelpOptions = true, version = "fleetbus 0.1.0", scope = ScopeType.INHERIT,
  description = "Talk to a fleetbus hub. Answers print as tables, times in your zone with how long ago; --json prints"
    + " the hub's JSON as it came. Every command has --help (or: fleetbus help COMMAND).",
  footer = "Exit codes: 0 ok, 1 hub unreachable, 2 usage, 3 pending approval, 4 audit chain broken, 100-129 for 4xx"
    + " failures (403 -> 103), 150-154 for 5xx (503 -> 153).",
  subcommands = {CliCommands.Nodes.class, CliCommands.Tools.class, CallCommands.Call.class, CallCommands.Result.class,
    CallCommands.Cancel.class, CallCommands.Approvals.class, CallCommands.Approve.class, CallCommands.Deny.class,
    JobsCommand.class, CliCommands.Enroll.class, CliCommands.Rekey.class, RevocationCommands.Revoke.class,
    RevocationCommands.Revocations.class, AuditCommand.class, CliCommands.Help.class})
public final class FleetbusCli implements Runnable {

  @Option(names = "--url", scope = ScopeType.INHERIT, description = "hub URL (env FLEETBUS_URL; default ${DEFAULT-VALUE})",
    defaultValue = "${env:FLEETBUS_URL:-http://127.0.0.1:8080}")
  String url;

  @Option(names = "--token", scope = ScopeType.INHERIT, description = "JWT (env FLEETBUS_TOKEN, or a file in FLEETBUS_TOKEN_FILE)",
    defaultValue = "${env:FLEETBUS_TOKEN}")
  String token;

  @Option(names = "--json", scope = ScopeType.INHERIT, description = "print the hub's answer as JSON instead of a table")
  boolean json;

  PrintWriter out;
  PrintWriter err;

  @Override
  public void run() {
    new CommandLine(this).usage(out);
  }

  HubClient client() {
    return new HubClient(url, token != null ? token : tokenFromFile(), err);
  }

  private static String tokenFromFile() {
    String file = System.getenv("FLEETBUS_TOKEN_FILE");
    try {
      return file == null ? null : Files.readString(Path.of(file)).strip();
    } catch (IOException e) {
      return null;
    }
  }

  public static int run(String[] args) {
    return run(args, new PrintWriter(System.out, true, StandardCharsets.UTF_8),
      new PrintWriter(System.err, true, StandardCharsets.UTF_8));
  }

  public static int run(String[] args, PrintWriter out, PrintWriter err) {
    FleetbusCli cli = new FleetbusCli();
    cli.out = out;
    cli.err = err;
    return new CommandLine(cli).setOut(out).setErr(err)
      .setExecutionExceptionHandler((ex, cmd, parsed) -> {
        if (ex instanceof HubClient.Exit exit) {
          return exit.code;
        }
        throw ex;
      })
      .execute(args);
  }
}
