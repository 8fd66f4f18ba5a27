package io.fleetbus.node.processes;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.shared.bus.FailureCode;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Starts a managed process. Its output goes to a file of its own (not a pipe to the node), so the
 * process keeps running, and writing, while the node restarts. The file is rotated at each launch
 * once it passes its cap.
 */
final class ProcessLauncher {
  private final Path logDir;
  private final long logCapBytes;

  private io.fleetbus.node.confine.Spawner spawner = io.fleetbus.node.confine.Spawner.DIRECT;

  /** Where managed processes start from (the node's confinement), from now on. */
  void spawner(io.fleetbus.node.confine.Spawner spawner) {
    this.spawner = spawner;
  }

  ProcessLauncher(Path logDir, long logCapBytes) {
    this.logDir = logDir;
    this.logCapBytes = logCapBytes;
  }

  Process launch(ProcessConfig config) throws IOException {
    Path exe = Path.of(config.exePath());
    if (!Files.isExecutable(exe)) {
      throw FailureCode.TOOL_FAILED.exception("cannot start '" + config.name() + "': " + exe
        + (Files.exists(exe) ? " is not executable" : " does not exist"));
    }
    if (config.cwd() != null && !Files.isDirectory(Path.of(config.cwd()))) {
      throw FailureCode.TOOL_FAILED.exception("cannot start '" + config.name() + "': cwd " + config.cwd()
        + " is not a folder");
    }
    List<String> argv = new ArrayList<>(priorityPrefix(config.priority()));
    argv.addAll(config.argv());
    Path log = logFile(config.name());
    rotate(log);
    if (!Files.exists(log)) {
      Files.createFile(log); // here, unconfined: the confined launcher may append to it, never create files there
    }
    ProcessBuilder pb = new ProcessBuilder(argv)
      .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
      .redirectErrorStream(true)
      .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    if (config.cwd() != null) {
      pb.directory(new File(config.cwd()));
    }
    pb.environment().putAll(config.env());
    try {
      return spawner.start(pb);
    } catch (IOException e) {
      throw FailureCode.TOOL_FAILED.exception("cannot start '" + config.name() + "': " + e.getMessage());
    }
  }

  Path logFile(String name) throws IOException {
    Files.createDirectories(logDir);
    return logDir.resolve(name.replaceAll("[^A-Za-z0-9._-]", "_") + ".log");
  }

  private void rotate(Path log) throws IOException {
    if (Files.isRegularFile(log) && Files.size(log) > logCapBytes) {
      Files.move(log, log.resolveSibling(log.getFileName() + ".1"), StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** Low and High map to nice levels where nice exists; raising priority needs root, else nice warns and runs as normal. */
  private static List<String> priorityPrefix(String priority) {
    if ("windows".equals(NodeSettings.platform())) {
      return List.of();
    }
    String level = switch (priority == null ? "normal" : priority.toLowerCase(Locale.ROOT)) {
      case "low" -> "10";
      case "high" -> "-5";
      case "realtime" -> "-15";
      default -> null;
    };
    Path nice = Files.isExecutable(Path.of("/usr/bin/nice")) ? Path.of("/usr/bin/nice") : Path.of("/bin/nice");
    return level == null || !Files.isExecutable(nice) ? List.of() : List.of(nice.toString(), "-n", level);
  }

  private static File nullDevice() {
    return new File("windows".equals(NodeSettings.platform()) ? "NUL" : "/dev/null");
  }
}
