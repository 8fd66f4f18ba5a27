package io.fleetbus.node.processes;

import io.fleetbus.node.tools.command.CommandLine;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a managed process is: the program, its arguments, folder, environment and priority, and how
 * the node launches it. Stored with the same field names the tools take, so a listing can be fed
 * back into update_process.
 *
 * @param fileArgs       arguments as one line (seed name {@code file_path}), split into words without a shell
 * @param timeToInit     seconds a launch needs to count as up: quicker crashes make the relaunch backoff grow
 * @param relaunchWindow seconds over which relaunches are counted against {@code relaunchAttempts}
 */
public record ProcessConfig(String name, String exePath, String fileArgs, List<String> args, String cwd,
                            Map<String, String> env, String priority, int timeDelay, int timeToInit,
                            int relaunchAttempts, int relaunchWindow, LaunchMode launchMode,
                            WeeklySchedule schedules) {
  private static final List<String> SECRET_WORDS = List.of("SECRET", "TOKEN", "PASSWORD", "PASSWD", "KEY", "PRIVATE",
    "CREDENTIAL");

  /** The config of add_process (defaults already filled in by the catalogue). */
  public static ProcessConfig fromArgs(JsonObject args) {
    return fromJson(args).checked();
  }

  /** This config with the fields present in {@code args} replaced (update_process). */
  public ProcessConfig with(JsonObject args) {
    JsonObject merged = toJson();
    for (String key : args.fieldNames()) {
      if (!"process_name".equals(key)) {
        merged.put(key, args.getValue(key));
      }
    }
    return fromJson(merged).checked();
  }

  public ProcessConfig withLaunchMode(LaunchMode mode, WeeklySchedule newSchedules) {
    return new ProcessConfig(name, exePath, fileArgs, args, cwd, env, priority, timeDelay, timeToInit,
      relaunchAttempts, relaunchWindow, mode, newSchedules == null || newSchedules.isEmpty() ? schedules : newSchedules)
      .checked();
  }

  private ProcessConfig checked() {
    if (!Path.of(exePath).isAbsolute()) {
      throw FailureCode.BAD_REQUEST.exception("exe_path '" + exePath + "' must be an absolute path to the program");
    }
    if (cwd != null && !Path.of(cwd).isAbsolute()) {
      throw FailureCode.BAD_REQUEST.exception("cwd '" + cwd + "' must be an absolute path");
    }
    if (launchMode == LaunchMode.SCHEDULED && schedules.isEmpty()) {
      throw FailureCode.BAD_REQUEST.exception("launch mode 'scheduled' needs schedules: "
        + "[{\"days\": [\"mon\"], \"ranges\": [{\"start\": \"09:00\", \"stop\": \"18:00\"}]}]");
    }
    argv(); // the argument line must split
    return this;
  }

  /** The program and its arguments, as they are passed to the operating system. */
  public List<String> argv() {
    List<String> argv = new ArrayList<>();
    argv.add(exePath);
    if (fileArgs != null && !fileArgs.isBlank()) {
      argv.addAll(CommandLine.split(fileArgs));
    }
    argv.addAll(args);
    return argv;
  }

  /** As {@link #toJson()}, for people: values of variables whose names look secret are masked. */
  public JsonObject toView() {
    JsonObject view = toJson();
    JsonObject env = view.getJsonObject("env");
    for (String key : env.fieldNames()) {
      String upper = key.toUpperCase(java.util.Locale.ROOT);
      if (SECRET_WORDS.stream().anyMatch(upper::contains)) {
        env.put(key, "****");
      }
    }
    return view;
  }

  public JsonObject toJson() {
    JsonObject json = new JsonObject()
      .put("name", name)
      .put("exe_path", exePath)
      .put("args", new JsonArray(args))
      .put("env", new JsonObject(new LinkedHashMap<>(env)))
      .put("priority", priority)
      .put("time_delay", timeDelay)
      .put("time_to_init", timeToInit)
      .put("relaunch_attempts", relaunchAttempts)
      .put("relaunch_window_seconds", relaunchWindow)
      .put("launch_mode", launchMode.json())
      .put("schedules", schedules.toJson());
    if (fileArgs != null) {
      json.put("file_path", fileArgs);
    }
    if (cwd != null) {
      json.put("cwd", cwd);
    }
    return json;
  }

  public static ProcessConfig fromJson(JsonObject j) {
    Map<String, String> env = new LinkedHashMap<>();
    j.getJsonObject("env", new JsonObject()).forEach(e -> env.put(e.getKey(), String.valueOf(e.getValue())));
    List<String> args = new ArrayList<>();
    j.getJsonArray("args", new JsonArray()).forEach(a -> args.add(String.valueOf(a)));
    return new ProcessConfig(j.getString("name"), j.getString("exe_path"), j.getString("file_path"), List.copyOf(args),
      j.getString("cwd"), Map.copyOf(env), j.getString("priority", "Normal"), count(j, "time_delay", 0),
      count(j, "time_to_init", 10), count(j, "relaunch_attempts", 5), count(j, "relaunch_window_seconds", 600),
      LaunchMode.parse(j.getString("launch_mode", "off")), WeeklySchedule.parse(j.getJsonArray("schedules")));
  }

  /** The seed sends some counts as strings ("5"); the schema allowed digits only. */
  private static int count(JsonObject j, String key, int fallback) {
    Object v = j.getValue(key);
    if (v == null) {
      return fallback;
    }
    try {
      return v instanceof Number n ? n.intValue() : Integer.parseInt(v.toString().strip());
    } catch (NumberFormatException e) {
      throw FailureCode.BAD_REQUEST.exception(key + " must be a whole number of seconds or attempts, not '" + v + "'");
    }
  }
}
