package io.fleetbus.hub.cli;

import io.vertx.core.json.JsonObject;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;

/**
 * {@code fleetbus jobs}: a node's jobs (issue 33). Each subcommand is one job tool called through the REST API
 * ({@code job_list}, {@code job_logs}, {@code job_cancel}), printed for a person: a short list with local times, the
 * output as text. {@code --json} prints the tool's answer as it came.
 */
@Command(name = "jobs", subcommands = {JobsCommand.ListJobs.class, JobsCommand.Logs.class, JobsCommand.Cancel.class},
  description = {"A node's jobs (job_launch starts them): list, logs, cancel.",
    "fleetbus jobs list NODE · fleetbus jobs logs NODE JOB · fleetbus jobs cancel NODE JOB"})
final class JobsCommand implements Callable<Integer> {
  @ParentCommand
  FleetbusCli cli;

  @Override
  public Integer call() {
    new picocli.CommandLine(this).usage(cli.out);
    return 0;
  }

  /** What the subcommands share: calling a job tool on a node and showing its answer. */
  abstract static class JobTool implements Callable<Integer> {
    @ParentCommand
    JobsCommand jobs;

    int tool(String node, String tool, JsonObject args, CliCommands.View view) {
      JsonObject given = new JsonObject();
      args.forEach(e -> {
        if (e.getValue() != null) {
          given.put(e.getKey(), e.getValue());
        }
      });
      String path = "/api/v1/nodes/" + CliCommands.Base.seg(node) + "/tools/" + tool;
      return CliCommands.Base.show(jobs.cli, jobs.cli.client().post(path, given, 0),
        (out, text, body) -> view.draw(out, text, body.getJsonObject("data", new JsonObject())));
    }
  }

  @Command(name = "list", description = {"The node's jobs, newest first: id, state, when it started (your time zone),"
    + " how long it ran, its exit code and what it runs."})
  static final class ListJobs extends JobTool {
    @Parameters(paramLabel = "NODE")
    String node;
    @Option(names = "--status", paramLabel = "STATUS",
      description = "only jobs in this state: pending, running, stalled, completed, failed, cancelled, timed_out")
    String status;
    @Option(names = "--limit", paramLabel = "N", description = "at most this many (default 20, at most 200)")
    Integer limit;

    @Override
    public Integer call() {
      return tool(node, "job_list", new JsonObject().put("status", status).put("limit", limit), JobViews::list);
    }
  }

  @Command(name = "logs", description = {"A job's output (stdout and stderr in the order they came; stderr lines"
    + " marked 'err|'), from --offset on.", "The last line says how to read on."})
  static final class Logs extends JobTool {
    @Parameters(index = "0", paramLabel = "NODE")
    String node;
    @Parameters(index = "1", paramLabel = "JOB")
    String job;
    @Option(names = "--offset", paramLabel = "LINE", description = "the first line to show (numbered from 0)")
    Long offset;
    @Option(names = "--limit", paramLabel = "N", description = "at most this many lines (default 50, at most 1000)")
    Integer limit;

    @Override
    public Integer call() {
      JsonObject args = new JsonObject().put("job_id", job).put("offset", offset).put("limit", limit);
      return tool(node, "job_logs", args, (out, text, data) -> JobViews.logs(out, text, data, node));
    }
  }

  @Command(name = "cancel", description = "Stop a running job: its whole process tree (tier 2: operator or above)")
  static final class Cancel extends JobTool {
    @Parameters(index = "0", paramLabel = "NODE")
    String node;
    @Parameters(index = "1", paramLabel = "JOB")
    String job;

    @Override
    public Integer call() {
      return tool(node, "job_cancel", new JsonObject().put("job_id", job), JobViews::cancelled);
    }
  }
}
