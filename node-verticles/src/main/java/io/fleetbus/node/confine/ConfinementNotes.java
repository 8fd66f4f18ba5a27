package io.fleetbus.node.confine;

import io.vertx.core.json.JsonObject;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why a confined process failed, in words a person can act on: the kernel answers a refused exec or open with a bare
 * "Permission denied" (exit 126 from a shell), a refused signal with "Operation not permitted", a refused connect with
 * "Permission denied" too. Read from the program's own error output, each refusal gets the rule that made it and the
 * conf key that would allow it. Nothing is added to a run that shows no refusal.
 */
public final class ConfinementNotes {
  /** "…: <what>: Permission denied" as shells, coreutils, find, env, xargs, git and setsid write it. */
  private static final Pattern DENIED = Pattern.compile("(?:^|[\\s:'‘`\"])([^\\s:'‘’`\"]+)['’`\"]?: Permission denied");
  private static final Pattern EXEC_FAILED = Pattern.compile("(?:failed to execute ([^\\s:]+)|([^\\s:]+): Cannot exec)"
    + ": Permission denied");
  private static final Pattern PORT = Pattern.compile("port (\\d+)[^\\n]*(?:Permission denied|Couldn't connect)");
  private static final List<Path> PATH = pathDirs();

  private ConfinementNotes() {
  }

  /** Adds {@code confinement} (the notes) to a run's result and appends them to its stderr; the result itself if none. */
  public static JsonObject explain(JsonObject result) {
    List<String> notes = notes(result.getInteger("exitCode"), result.getString("stderr", ""), result.getString("signal"));
    if (!notes.isEmpty()) {
      String text = String.join("; ", notes);
      result.put("confinement", text).put("stderr", result.getString("stderr", "") + "\n(confinement: " + text + ")");
    }
    return result;
  }

  /** The notes for a run that ended with {@code exitCode} / {@code signal} and wrote {@code stderr}. */
  public static List<String> notes(Integer exitCode, String stderr, String signal) {
    Set<String> notes = new LinkedHashSet<>();
    Matcher exec = EXEC_FAILED.matcher(stderr);
    while (exec.find()) {
      String program = exec.group(1) != null ? exec.group(1) : exec.group(2);
      notes.add(notAllowed(program) + (exec.group(2) != null ? " (tar runs its compressors through /bin/sh, which"
        + " confined processes never execute: write the archive with tar -cf, then compress it with gzip)" : ""));
    }
    Matcher port = PORT.matcher(stderr);
    while (port.find()) {
      notes.add("TCP port " + port.group(1) + " is not open to confined processes: add it to `commands.network`"
        + " (a list of ports, or true) in the node's conf");
    }
    Matcher denied = DENIED.matcher(stderr);
    while (denied.find()) {
      String what = denied.group(1);
      if (what.equals("connect") || what.equals("exec") || what.matches("\\d+")) {
        continue;
      }
      notes.add(executable(what) ? notAllowed(what) : "'" + what + "' is outside what confined processes may read and"
        + " write: the node's file scope (`paths.allow` minus `paths.deny`, the system folders on a sudo node, the"
        + " node's own data) plus read-only system views");
    }
    if (stderr.contains("Operation not permitted") && (stderr.contains("kill") || stderr.contains("signal"))) {
      notes.add("a confined process signals only processes started in the same confined run (Landlock scope):"
        + " stop other processes with manage_process");
    }
    if (stderr.contains("Operation not permitted") && !stderr.contains("kill") && !stderr.contains("signal")) {
      notes.add("the kernel refused an operation that needs a capability or reaches another process: confined"
        + " processes of a sudo node hold no capabilities (root nodes: none of those that step around the"
        + " confinement), and act only on processes of their own run");
    }
    if ("SIGXCPU".equals(signal) || "SIGKILL".equals(signal) && stderr.contains("CPU time limit")) {
      notes.add("stopped at the CPU-time limit: raise `commands.limits.cpuSeconds` in the node's conf (0: none), or run"
        + " it as a job (no CPU-time limit)");
    }
    if ("SIGXFSZ".equals(signal) || stderr.contains("File too large")) {
      notes.add("a file reached the size limit: raise `commands.limits.fileSizeMb` in the node's conf (0: none)");
    }
    if (stderr.contains("fork: retry") || stderr.contains("fork: Resource temporarily unavailable")
      || stderr.contains("Cannot fork")) {
      notes.add("the process-count limit was reached: raise `commands.limits.processes` in the node's conf");
    }
    if (notes.isEmpty() && exitCode != null && exitCode == 126) {
      notes.add("exit 126: a program could not be executed; confined processes execute only the programs on the node's"
        + " `allowlist`");
    }
    return new ArrayList<>(notes);
  }

  private static String notAllowed(String program) {
    String name = program.substring(program.lastIndexOf('/') + 1);
    return "'" + program + "' is not on this node's allowlist, so confined processes may not execute it: add '" + name
      + "' to `allowlist` in the node's conf";
  }

  /** Whether {@code what} names a program (a path to an executable file, or a name found on PATH). */
  private static boolean executable(String what) {
    if (what.contains("/")) {
      Path p = Path.of(what);
      return Files.isRegularFile(p) && Files.isExecutable(p);
    }
    return PATH.stream().map(d -> d.resolve(what)).anyMatch(p -> Files.isRegularFile(p) && Files.isExecutable(p));
  }

  private static List<Path> pathDirs() {
    String path = System.getenv("PATH");
    List<Path> dirs = new ArrayList<>();
    for (String d : (path == null ? "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" : path).split(File.pathSeparator)) {
      if (!d.isBlank()) {
        dirs.add(Path.of(d));
      }
    }
    return dirs;
  }

  /** The first note, for a one-line error (a job's). */
  public static Optional<String> first(Integer exitCode, String stderr, String signal) {
    return notes(exitCode, stderr, signal).stream().findFirst();
  }
}
