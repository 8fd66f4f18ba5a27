package io.fleetbus.node.jobs;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What job_launch asked for, checked: a command line or a script for an interpreter, where to run
 * it, extra environment, and the two clocks (silence before "stalled", total run time).
 *
 * @param maxRuntimeSeconds 0 for no limit
 */
record JobRequest(String command, String script, String interpreter, String cwd, Map<String, String> env,
                  String label, long stallTimeoutSeconds, long maxRuntimeSeconds) {

  static JobRequest fromArgs(JsonObject args) {
    String command = args.getString("command");
    String script = args.getString("script");
    if (command != null && script != null) {
      throw FailureCode.BAD_REQUEST.exception("give either command or script, not both");
    }
    String cwd = args.getString("cwd");
    if (cwd != null && !Files.isDirectory(Path.of(cwd))) {
      throw FailureCode.BAD_REQUEST.exception("cwd '" + cwd + "' is not a folder on this node");
    }
    Map<String, String> env = new LinkedHashMap<>();
    args.getJsonObject("env", new JsonObject()).forEach(e -> env.put(e.getKey(), String.valueOf(e.getValue())));
    String interpreter = args.getString("interpreter", "windows".equals(NodeSettings.platform()) ? "cmd" : "sh");
    return new JobRequest(command, script, interpreter, cwd, Map.copyOf(env), args.getString("label"),
      args.getLong("stall_timeout_seconds", 600L), args.getLong("max_runtime_seconds", 0L));
  }

  /** What the job list shows for the work (a script by its size: its text may be long). */
  String summary() {
    return command != null ? command : interpreter + " script (" + script.length() + " characters)";
  }
}
