package io.fleetbus.node.settings;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the node's tools and sandbox need from conf/node.json. Relative paths are taken from the
 * working folder the node was started in.
 *
 * @param resultCapBytes      the most a tool result may weigh (encoded JSON) before it is cut and marked truncated
 * @param sandboxDir          the only folder an unprivileged node's file tools may touch
 * @param allowedRoots        folders root and sudo nodes may touch (sudo loses the system folders on top)
 * @param deniedPaths         folders no file tool may touch, whatever the tier
 * @param logPaths            globs of the files read_logs may read
 * @param protectedProcesses  names manage_process refuses besides the built-in ones
 * @param packageManagers     programs a sudo or root node's run_command accepts besides the allowlist
 * @param elevateWith         prefix for package-manager commands (e.g. ["sudo", "-n"]); empty runs them as they are
 * @param commandRules        per-program argument rules for run_command: {"apt": {"subcommands": [..], "flags": [..]}}
 * @param destructivePatterns regular expressions refused in run_command/run_script on sudo nodes, besides the built-in ones
 * @param commandEnv          names of the variables run_command's {@code env} may set ({@code commands.env}; a trailing
 *                            {@code *} matches a prefix): the locale, time zone and a few display ones by default
 * @param confinement         {@code "scope"}/{@code "none"} or {@code {"mode": …, "required": …}}: kernel confinement of the
 *                            processes this node starts (see {@link io.fleetbus.node.confine.Confinement})
 * @param privatePaths        folders no tool and no started process ever reaches, besides the node's own data folder
 *                            and every folder a hub or node marked ({@code paths.private}; see
 *                            {@link io.fleetbus.node.grant.NodeGrant}): only adds, nothing lifts them
 */
public record ToolSettings(int resultCapBytes, Path sandboxDir, List<Path> allowedRoots, List<Path> deniedPaths,
                           List<String> logPaths, int logMaxLines, List<String> protectedProcesses,
                           List<String> packageManagers, List<String> elevateWith, JsonObject commandRules,
                           List<String> destructivePatterns, Power power, Cleanup cleanup, boolean envAllowUnmasked,
                           JsonObject confinement, List<String> commandEnv, List<Path> privatePaths) {

  public static final int DEFAULT_RESULT_CAP = 100 * 1024;
  /** What run_command's env may set unless the conf says otherwise: nothing that makes a program load or run code. */
  public static final List<String> DEFAULT_COMMAND_ENV = List.of("LANG", "LANGUAGE", "LC_*", "TZ", "NO_COLOR", "COLUMNS");

  /** reboot/shutdown: the countdown and the commands that finally run. */
  public record Power(int countdownSeconds, List<String> rebootCommand, List<String> shutdownCommand) {
  }

  /** clean_disk_space targets: the temp folder and named folders. */
  public record Cleanup(Path tempDir, Map<String, Path> folders) {
  }

  /** As the canonical constructor, without private folders of the conf's own (tests and older callers). */
  public ToolSettings(int resultCapBytes, Path sandboxDir, List<Path> allowedRoots, List<Path> deniedPaths,
                      List<String> logPaths, int logMaxLines, List<String> protectedProcesses,
                      List<String> packageManagers, List<String> elevateWith, JsonObject commandRules,
                      List<String> destructivePatterns, Power power, Cleanup cleanup, boolean envAllowUnmasked,
                      JsonObject confinement, List<String> commandEnv) {
    this(resultCapBytes, sandboxDir, allowedRoots, deniedPaths, logPaths, logMaxLines, protectedProcesses,
      packageManagers, elevateWith, commandRules, destructivePatterns, power, cleanup, envAllowUnmasked, confinement,
      commandEnv, List.of());
  }

  public static ToolSettings defaults(Path dataDir) {
    return fromConf(new JsonObject(), dataDir);
  }

  public static ToolSettings fromConf(JsonObject conf, Path dataDir) {
    JsonObject paths = conf.getJsonObject("paths", new JsonObject());
    JsonObject logs = conf.getJsonObject("logs", new JsonObject());
    JsonObject commands = conf.getJsonObject("commands", new JsonObject());
    JsonObject power = conf.getJsonObject("power", new JsonObject());
    JsonObject cleanup = conf.getJsonObject("cleanup", new JsonObject());
    Path data = dataDir.toAbsolutePath().normalize();
    Map<String, Path> folders = new LinkedHashMap<>();
    cleanup.getJsonObject("folders", new JsonObject()).forEach(e -> folders.put(e.getKey(), abs(String.valueOf(e.getValue()))));
    return new ToolSettings(
      conf.getInteger("resultCapBytes", DEFAULT_RESULT_CAP),
      paths.getString("sandboxDir") == null ? data.resolve("sandbox") : abs(paths.getString("sandboxDir")),
      strings(paths, "allow", List.of("/")).stream().map(ToolSettings::abs).toList(),
      strings(paths, "deny", List.of()).stream().map(ToolSettings::abs).toList(),
      strings(logs, "paths", List.of("/var/log/**")).stream()
        .map(g -> g.startsWith("/") ? g : abs(".") + "/" + g).toList(),
      logs.getInteger("maxLines", 200),
      strings(conf, "protectedProcesses", List.of()),
      strings(commands, "packageManagers", List.of()),
      strings(commands, "elevateWith", List.of()),
      commands.getJsonObject("rules", new JsonObject()),
      strings(commands, "destructivePatterns", List.of()),
      new Power(power.getInteger("countdownSeconds", 30),
        strings(power, "rebootCommand", List.of("systemctl", "reboot")),
        strings(power, "shutdownCommand", List.of("systemctl", "poweroff"))),
      new Cleanup(abs(cleanup.getString("temp", System.getProperty("java.io.tmpdir"))), Map.copyOf(folders)),
      conf.getJsonObject("env", new JsonObject()).getBoolean("allowUnmasked", false),
      confinement(conf, commands),
      strings(commands, "env", DEFAULT_COMMAND_ENV),
      strings(paths, "private", List.of()).stream().map(ToolSettings::abs).toList());
  }

  /** The settings as get_agent_config shows them (before masking). */
  public JsonObject toJson() {
    JsonObject folders = new JsonObject();
    cleanup.folders().forEach((k, v) -> folders.put(k, v.toString()));
    return new JsonObject()
      .put("resultCapBytes", resultCapBytes)
      .put("paths", new JsonObject().put("sandboxDir", sandboxDir.toString())
        .put("allow", new JsonArray(allowedRoots.stream().map(Path::toString).toList()))
        .put("deny", new JsonArray(deniedPaths.stream().map(Path::toString).toList()))
        .put("private", new JsonArray(privatePaths.stream().map(Path::toString).toList())))
      .put("logs", new JsonObject().put("paths", new JsonArray(logPaths)).put("maxLines", logMaxLines))
      .put("protectedProcesses", new JsonArray(protectedProcesses))
      .put("commands", new JsonObject().put("packageManagers", new JsonArray(packageManagers))
        .put("elevateWith", new JsonArray(elevateWith)).put("rules", commandRules)
        .put("destructivePatterns", new JsonArray(destructivePatterns)).put("env", new JsonArray(commandEnv)))
      .put("power", new JsonObject().put("countdownSeconds", power.countdownSeconds())
        .put("rebootCommand", new JsonArray(power.rebootCommand()))
        .put("shutdownCommand", new JsonArray(power.shutdownCommand())))
      .put("cleanup", new JsonObject().put("temp", cleanup.tempDir().toString()).put("folders", folders))
      .put("env", new JsonObject().put("allowUnmasked", envAllowUnmasked));
  }

  /** {@code confinement} with the process grant's keys of {@code commands} (network, limits, unixSockets) in it. */
  private static JsonObject confinement(JsonObject conf, JsonObject commands) {
    JsonObject c = conf.getValue("confinement") instanceof String mode ? new JsonObject().put("mode", mode)
      : conf.getJsonObject("confinement", new JsonObject()).copy();
    for (String key : List.of("network", "limits", "unixSockets")) {
      if (commands.containsKey(key)) {
        c.put(key, commands.getValue(key));
      }
    }
    return c;
  }

  private static Path abs(String p) {
    return Path.of(p).toAbsolutePath().normalize();
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(JsonObject o, String key, List<String> fallback) {
    JsonArray a = o.getJsonArray(key);
    return a == null ? fallback : List.copyOf((List<String>) (List<?>) a.getList());
  }
}
