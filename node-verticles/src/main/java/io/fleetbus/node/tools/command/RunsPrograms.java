package io.fleetbus.node.tools.command;

import io.fleetbus.node.tools.CallControl;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Something that runs one program (no shell) on the calling worker thread and answers its exit and output:
 * {@link ProcessRunner} itself and {@link HostCommands}, the door in front of it. The shorter forms are written
 * once, here, so both answer them alike.
 */
public interface RunsPrograms {
  /** Runs argv with {@code env} added to the environment, streaming through {@code control}, stopping on cancel. */
  JsonObject run(List<String> argv, Path cwd, Map<String, String> env, long timeoutMs, CallControl control)
    throws IOException, InterruptedException;

  /** As above, in the environment as it is. */
  default JsonObject run(List<String> argv, Path cwd, long timeoutMs, CallControl control)
    throws IOException, InterruptedException {
    return run(argv, cwd, Map.of(), timeoutMs, control);
  }

  /** As above, for no call: nobody listens to the output and nothing cancels it. */
  default JsonObject run(List<String> argv, Path cwd, long timeoutMs) throws IOException, InterruptedException {
    return run(argv, cwd, timeoutMs, CallControl.detached("local"));
  }
}
