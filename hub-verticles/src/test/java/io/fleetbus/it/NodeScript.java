package io.fleetbus.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs one of the Node.js client scripts in {@code clients/} and keeps its exit code and output. */
record NodeScript(int exitCode, String output) {
  static final Path CLIENTS = Path.of("..", "clients").toAbsolutePath().normalize();

  /** Why the scripts cannot run here, or null when they can ({@code node} on the PATH, {@code npm ci} done). */
  static String unavailable() {
    if (!Files.isDirectory(CLIENTS.resolve("node_modules"))) {
      return "clients/node_modules is missing: run `npm ci` in clients/ (.ci/run does)";
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
    try {
      Path out = Files.createTempFile("fleetbus-node", ".log");
      ProcessBuilder pb = new ProcessBuilder("node", script).directory(CLIENTS.toFile())
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
