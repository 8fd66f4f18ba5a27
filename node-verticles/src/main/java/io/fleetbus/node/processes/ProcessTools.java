package io.fleetbus.node.processes;

import io.fleetbus.node.tools.Unsupported;
import io.fleetbus.node.tools.ToolHandler;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/** The managed-process tools, by catalogue name. Arguments arrive checked against their schemas. */
public final class ProcessTools {
  private ProcessTools() {
  }

  public static Map<String, ToolHandler> handlers(ManagedProcesses processes) {
    return Map.of(
      "add_process", (args, ctx) -> seedNotes(processes.add(ProcessConfig.fromArgs(args)), args),
      "update_process", (args, ctx) -> seedNotes(processes.update(args.getString("process_name"), args), args),
      "delete_process", (args, ctx) -> processes.delete(args.getString("process_name")),
      "start_process", (args, ctx) -> processes.start(args.getString("process_name")),
      "kill_process", (args, ctx) -> processes.kill(args.getString("process_name")),
      "restart_process", (args, ctx) -> processes.restart(args.getString("process_name")),
      "set_launch_mode", (args, ctx) -> processes.setLaunchMode(args.getString("process_name"),
        LaunchMode.parse(args.getString("mode")), WeeklySchedule.parse(args.getJsonArray("schedules"))),
      "get_process_list", (args, ctx) -> {
        var all = processes.list();
        return new JsonObject().put("processes", all).put("count", all.size());
      });
  }

  /** The seed's Windows-side fields: accepted, not kept, and named in the answer. */
  private static JsonObject seedNotes(JsonObject result, JsonObject args) {
    Unsupported.note(result, args, "visibility", "a managed process has no window to show or hide here; it runs"
      + " without one (the field is not kept)");
    return Unsupported.note(result, args, "schedulePresetId", "fleetbus has no named schedule presets; give the weekly"
      + " blocks in schedules (the field is not kept)");
  }
}
