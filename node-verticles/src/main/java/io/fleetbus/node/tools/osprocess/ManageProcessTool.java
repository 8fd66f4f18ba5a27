package io.fleetbus.node.tools.osprocess;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.FileSystems;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import oshi.SystemInfo;
import oshi.software.os.OSProcess;

/**
 * manage_process: kill, suspend or resume OS processes by exact name or glob. If the name hits a
 * protected process, or too many processes, nothing is done at all.
 */
public final class ManageProcessTool implements ToolHandler {
  static final int MAX_MATCHES = 50;
  private static final long GRACE_MS = 5000;

  private final SystemInfo system;
  private final ProcessGuard guard;

  public ManageProcessTool(SystemInfo system, ProcessGuard guard) {
    this.system = system;
    this.guard = guard;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws InterruptedException {
    String pattern = args.getString("name_pattern");
    String action = args.getString("action");
    if (!"kill".equals(action) && "windows".equals(NodeSettings.platform())) {
      throw FailureCode.BAD_REQUEST.exception("`manage_process` " + action + " is not available on `windows` yet");
    }
    List<OSProcess> hits = system.getOperatingSystem().getProcesses().stream()
      .filter(p -> matcher(pattern, args.getBoolean("match_exact")).test(p.getName())).toList();
    if (hits.isEmpty()) {
      throw FailureCode.NOT_FOUND.exception("no running process is named '" + pattern + "'");
    }
    if (hits.size() > MAX_MATCHES) {
      throw FailureCode.BAD_REQUEST.exception("'" + pattern + "' matches " + hits.size() + " processes (at most "
        + MAX_MATCHES + " at once); narrow it. Nothing was done");
    }
    for (OSProcess p : hits) {
      Optional<String> why = guard.refusal(p.getProcessID(), p.getName());
      if (why.isPresent()) {
        throw FailureCode.FORBIDDEN.exception("'" + pattern + "' matches " + p.getName() + " (pid " + p.getProcessID()
          + "), which fleetbus never touches: " + why.get() + ". Nothing was done");
      }
    }
    JsonArray results = new JsonArray();
    for (OSProcess p : hits) {
      results.add(new JsonObject().put("pid", p.getProcessID()).put("name", p.getName())
        .put("result", act(p.getProcessID(), action, args.getBoolean("force"))));
    }
    return new JsonObject().put("action", action).put("processes", results).put("count", results.size());
  }

  private static String act(long pid, String action, boolean force) throws InterruptedException {
    Optional<ProcessHandle> h = ProcessHandle.of(pid);
    if (h.isEmpty() || !h.get().isAlive()) {
      return "already gone";
    }
    return switch (action) {
      case "suspend" -> Signals.send(pid, Signals.SIGSTOP) ? "suspended" : "failed (not permitted?)";
      case "resume" -> Signals.send(pid, Signals.SIGCONT) ? "resumed" : "failed (not permitted?)";
      default -> kill(h.get(), force);
    };
  }

  private static String kill(ProcessHandle h, boolean force) throws InterruptedException {
    if (!force) {
      h.destroy();
      try {
        h.onExit().get(GRACE_MS, TimeUnit.MILLISECONDS);
        return "terminated";
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        // did not stop politely within the grace period: forced below
      }
    }
    if (!h.destroyForcibly()) {
      return h.isAlive() ? "failed (not permitted?)" : "terminated";
    }
    try {
      h.onExit().get(GRACE_MS, TimeUnit.MILLISECONDS);
      return "killed";
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      return "kill sent, still exiting";
    }
  }

  static Predicate<String> matcher(String pattern, boolean exact) {
    if (exact) {
      return pattern::equals;
    }
    if (pattern.chars().noneMatch(c -> "*?[]{}!,".indexOf(c) < 0)) {
      throw FailureCode.BAD_REQUEST.exception("name_pattern '" + pattern + "' has no literal characters: it would match"
        + " every process");
    }
    PathMatcher m;
    try {
      m = FileSystems.getDefault().getPathMatcher("glob:" + pattern);
    } catch (IllegalArgumentException e) {
      throw FailureCode.BAD_REQUEST.exception("name_pattern '" + pattern + "' is not a valid glob: " + e.getMessage());
    }
    return name -> {
      try {
        return !name.contains("/") && m.matches(Path.of(name));
      } catch (InvalidPathException e) {
        return false;
      }
    };
  }
}
