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
      : scriptArgv(req.interpreter(), writeScript(req, jobDir), req.script());
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

  /**
   * A script goes to its interpreter as text, not as the path of the copy kept in the job's folder: a confined job
   * reads nothing of the node's data folder (no job reads another's output.log). The text travels in arguments of
   * at most {@link #CHUNK} characters (the kernel takes up to 128 KiB per argument): one {@code -c} for most scripts,
   * {@code -c 'eval "$1$2…"'} for longer ones. cmd.exe (Windows) still runs the file.
   */
  private static List<String> scriptArgv(String interpreter, Path script, String text) {
    if ("cmd".equals(interpreter)) {
      return List.of("cmd.exe", "/c", script.toAbsolutePath().toString());
    }
    if ("pwsh".equals(interpreter)) {
      return List.of("pwsh", "-NoProfile", "-NonInteractive", "-Command", text);
    }
    String shell = "bash".equals(interpreter) ? "bash" : "/bin/sh";
    if (text.length() <= CHUNK) {
      return List.of(shell, "-c", text, "job-script");
    }
    List<String> argv = new java.util.ArrayList<>(List.of(shell, "-c", "", "job-script"));
    StringBuilder eval = new StringBuilder("eval \"");
    for (int i = 0, n = 1; i < text.length(); n++) {
      int end = Math.min(text.length(), i + CHUNK);
      if (end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))) {
        end--; // never split a character in two
      }
      argv.add(text.substring(i, end));
      eval.append("${").append(n).append('}');
      i = end;
    }
    argv.set(2, eval.append('"').toString());
    return argv;
  }

  /** Characters per argument: 32 Ki characters are at most 128 KiB of UTF-8. */
  static final int CHUNK = 32 * 1024;

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
