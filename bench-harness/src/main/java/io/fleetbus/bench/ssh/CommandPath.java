package io.fleetbus.bench.ssh;

import io.fleetbus.bench.load.CallPath;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One run of a local program (e.g. {@code ssh localhost echo hi}), timed from spawn to exit; its output is checked. */
public final class CommandPath implements CallPath {
  private final Vertx vertx;
  private final List<String> argv;
  private final String expectedOutput;

  public CommandPath(Vertx vertx, List<String> argv, String expectedOutput) {
    this.vertx = vertx;
    this.argv = List.copyOf(argv);
    this.expectedOutput = expectedOutput;
  }

  @Override
  public Future<Void> call() {
    return vertx.executeBlocking(() -> {
      Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", argv) + " did not end within 30 s");
      }
      if (p.exitValue() != 0 || !expectedOutput.equals(out)) {
        throw new IllegalStateException(String.join(" ", argv) + " exited " + p.exitValue() + " with: " + out);
      }
      return null;
    }, false);
  }
}
