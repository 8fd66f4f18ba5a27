package io.fleetbus.node.jobs;

import io.fleetbus.node.tools.AsyncToolHandler;
import io.fleetbus.node.tools.ToolHandler;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/** The job tools, by catalogue name. The seed's {@code execution_id} is accepted for {@code job_id}. */
public final class JobTools {
  private JobTools() {
  }

  public static Map<String, ToolHandler> handlers(JobManager jobs) {
    return Map.of(
      "job_launch", new ToolHandler() {
        @Override
        public JsonObject run(JsonObject args, io.fleetbus.node.tools.CallContext ctx) throws Exception {
          return jobs.launch(args, ctx.control(), ctx.principal());
        }

        @Override
        public void check(JsonObject args) {
          jobs.checkLaunch(args);
        }
      },
      "job_status", (args, ctx) -> jobs.status(jobId(args)),
      "job_list", (args, ctx) -> jobs.list(args.getString("status"), args.getInteger("limit")),
      "job_logs", (args, ctx) -> jobs.logs(jobId(args), args.getLong("offset"), args.getInteger("limit")),
      "job_wait", (AsyncToolHandler) (args, ctx) -> jobs.await(jobId(args), args.getLong("timeout_seconds") * 1000,
        ctx.control()),
      "job_cancel", (args, ctx) -> jobs.cancel(jobId(args), ctx.principal()),
      "job_remove", (args, ctx) -> jobs.remove(jobId(args)));
  }

  private static String jobId(JsonObject args) {
    return args.getString("job_id", args.getString("execution_id"));
  }
}
