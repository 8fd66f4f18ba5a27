package io.fleetbus.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs one of the Node.js scripts of an npm folder ({@code clients/}, {@code api-tests/}) and keeps its exit code and output. */
record NodeScript(int exitCode, String output) {
  static final Path CLIENTS = Path.of("..", "clients").toAbsolutePath().normalize();
  static final Path API_TESTS = Path.of("..", "api-tests").toAbsolutePath().normalize();

  /** Why the client scripts cannot run here, or null when they can ({@code node} on the PATH, {@code npm ci} done). */
  static String unavailable() {
    return unavailable(CLIENTS);
  }

  /** Why the scripts of {@code folder} cannot run here, or null when they can. */
  static String unavailable(Path folder, String... modules) {
    if (!Files.isDirectory(folder.resolve("node_modules"))) {
      return folder.getFileName() + "/node_modules is missing: run `npm ci` in " + folder.getFileName() + "/ (.ci/run does)";
    }
    for (String module : modules) {
      if (!Files.isDirectory(folder.resolve("node_modules").resolve(module))) {
        return folder.getFileName() + "/node_modules lacks " + module + ": run `npm ci` in " + folder.getFileName() + "/";
      }
    }
    try {
      Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
      return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0 ? null : "`node --version` failed";
    } catch (IOException e) {
      return "no `node` on the PATH";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  static NodeScript run(String script, Map<String, String> env, long timeoutSeconds) {
    return run(CLIENTS, script, List.of(), env, timeoutSeconds);
  }

  static NodeScript run(Path folder, String script, List<String> args, Map<String, String> env, long timeoutSeconds) {
    try {
      Path out = Files.createTempFile("fleetbus-node", ".log");
      List<String> command = new ArrayList<>(List.of("node", script));
      command.addAll(args);
      ProcessBuilder pb = new ProcessBuilder(command).directory(folder.toFile())
        .redirectErrorStream(true).redirectOutput(out.toFile());
      pb.environment().putAll(env);
      Process p = pb.start();
      boolean ended = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
      if (!ended) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      String text = Files.readString(out, StandardCharsets.UTF_8);
      Files.deleteIfExists(out);
      return new NodeScript(ended ? p.exitValue() : -1, ended ? text : text + "\n(killed after " + timeoutSeconds + " s)");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
