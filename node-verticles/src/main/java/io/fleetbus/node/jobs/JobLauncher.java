package io.fleetbus.node.jobs;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.files.AtomicFiles;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * Starts a job's process: a command line through the chosen interpreter (a job is tier 3, so a
 * person approved it, shell and all), or a script saved in the job's folder and run by it. Output
 * comes back through pipes so the node can log it, stream it and notice silence.
 */
final class JobLauncher {
  private JobLauncher() {
  }

  static Process start(JobRequest req, Path jobDir, io.fleetbus.node.confine.Spawner spawner) throws IOException {
    List<String> argv = req.command() != null ? commandArgv(req.interpreter(), req.command())
      : scriptArgv(req.interpreter(), writeScript(req, jobDir));
    ProcessBuilder pb = new ProcessBuilder(argv);
    if (req.cwd() != null) {
      pb.directory(new File(req.cwd()));
    }
    pb.environment().putAll(req.env());
    try {
      Process process = spawner.start(pb);
      process.getOutputStream().close(); // no input: a job that reads stdin sees end-of-file at once
      return process;
    } catch (IOException e) {
      throw FailureCode.TOOL_FAILED.exception("cannot start the job with " + req.interpreter() + ": " + e.getMessage());
    }
  }

  private static List<String> commandArgv(String interpreter, String command) {
    return switch (interpreter) {
      case "bash" -> List.of("bash", "-c", command);
      case "pwsh" -> List.of("pwsh", "-NoProfile", "-NonInteractive", "-Command", command);
      case "cmd" -> List.of("cmd.exe", "/c", command);
      default -> List.of("/bin/sh", "-c", command);
    };
  }

  private static List<String> scriptArgv(String interpreter, Path script) {
    String path = script.toAbsolutePath().toString();
    return switch (interpreter) {
      case "bash" -> List.of("bash", path);
      case "pwsh" -> List.of("pwsh", "-NoProfile", "-NonInteractive", "-File", path);
      case "cmd" -> List.of("cmd.exe", "/c", path);
      default -> List.of("/bin/sh", path);
    };
  }

  private static Path writeScript(JobRequest req, Path jobDir) throws IOException {
    String ext = switch (req.interpreter()) {
      case "pwsh" -> ".ps1";
      case "cmd" -> ".cmd";
      default -> ".sh";
    };
    Path script = jobDir.resolve("script" + ext);
    AtomicFiles.write(script, req.script().getBytes(StandardCharsets.UTF_8));
    return script;
  }
}
