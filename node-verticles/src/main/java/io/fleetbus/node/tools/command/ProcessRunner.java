package io.fleetbus.node.tools.command;

import io.fleetbus.node.confine.ProcessTrees;
import io.fleetbus.node.confine.Spawner;
import io.fleetbus.node.tools.CallControl;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs one program (no shell) on the calling worker thread and collects its output, each stream
 * capped. On timeout the whole process tree gets SIGTERM, then SIGKILL after a grace period.
 */
public final class ProcessRunner implements RunsPrograms {
  private static final long KILL_GRACE_MS = 2000;

  private final int capBytes;
  private final Spawner spawner;

  /**
   * Threads that read a process's output, kept for reuse: the common pool would start a new thread per task on a
   * machine with fewer than 3 cores (its parallelism is then 1), two per command.
   */
  private static final java.util.concurrent.ExecutorService DRAINERS = java.util.concurrent.Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fleetbus-output-drain");
    t.setDaemon(true);
    return t;
  });

  public ProcessRunner(int capBytes) {
    this(capBytes, Spawner.DIRECT);
  }

  /** @param spawner where processes start from (a confined launcher thread, see Confinement) */
  public ProcessRunner(int capBytes, Spawner spawner) {
    this.capBytes = capBytes;
    this.spawner = spawner;
  }

  public Spawner spawner() {
    return spawner;
  }

  /**
   * Runs argv with {@code env} added to the environment, its output streamed through {@code control}, the tree
   * stopped on cancel. The answer: exitCode, stdout, stderr, timedOut, and
   * {@code signal} — the signal that ended the program (SIGTERM, SIGKILL …) or null: the JDK, like a shell, reports
   * death by signal N as exit code 128 + N, so an exit code from 129 to 192 is read as a signal.
   */
  @Override
  public JsonObject run(List<String> argv, Path cwd, java.util.Map<String, String> env, long timeoutMs,
                        CallControl control) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(argv);
    if (cwd != null) {
      pb.directory(cwd.toFile());
    }
    pb.environment().putAll(env);
    Process process;
    try {
      process = spawner.start(pb);
    } catch (IOException e) {
      throw FailureCode.TOOL_FAILED.exception("cannot start '" + argv.get(0) + "': " + e.getMessage());
    }
    process.getOutputStream().close(); // no input: a program that reads stdin sees end-of-file at once
    control.onCancel(() -> stopTree(handle(process)));
    CompletableFuture<Capture> out = CompletableFuture.supplyAsync(() -> drain(process.getInputStream(), "stdout", control),
      DRAINERS);
    CompletableFuture<Capture> err = CompletableFuture.supplyAsync(() -> drain(process.getErrorStream(), "stderr", control),
      DRAINERS);
    boolean timedOut = !process.waitFor(timeoutMs, TimeUnit.MILLISECONDS);
    if (timedOut) {
      stopTree(handle(process));
      process.waitFor(KILL_GRACE_MS + 1000, TimeUnit.MILLISECONDS);
    }
    Capture stdout = await(out);
    Capture stderr = await(err);
    Integer exitCode = process.isAlive() ? null : process.exitValue();
    JsonObject result = new JsonObject()
      .put("exitCode", exitCode)
      .put("stdout", stdout.text()).put("stderr", stderr.text())
      .put("timedOut", timedOut)
      .put("signal", signalName(exitCode));
    if (stdout.truncated() || stderr.truncated()) {
      result.put("truncated", true).put("stdoutBytes", stdout.totalBytes()).put("stderrBytes", stderr.totalBytes());
    }
    return result;
  }

  private static final String[] SIGNALS = {null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS",
    "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD",
    "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF",
    "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS"};

  /** The signal behind an exit code of 128 + N (Linux numbering), or null for a normal exit. */
  static String signalName(Integer exitCode) {
    if (exitCode == null || exitCode <= 128 || exitCode > 128 + 64) {
      return null;
    }
    int n = exitCode - 128;
    return n < SIGNALS.length ? SIGNALS[n] : n >= 34 ? "SIGRTMIN+" + (n - 34) : "signal " + n;
  }

  /**
   * A handle read on this thread: the one a Process made on a confined launcher thread carries no start time (that
   * thread may not read /proc), and the JDK then refuses to signal it.
   */
  public static ProcessHandle handle(Process process) {
    return ProcessHandle.of(process.pid()).orElse(process.toHandle());
  }

  /**
   * SIGTERM to the tree (its whole process group where it leads one, see ProcessTrees, and every descendant),
   * SIGKILL to whatever is still alive after the grace period.
   */
  public static void stopTree(ProcessHandle root) {
    ProcessTrees trees = ProcessTrees.get();
    List<ProcessHandle> tree = new java.util.ArrayList<>(root.descendants().toList());
    tree.add(root);
    trees.signal(root.pid(), false);
    tree.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(KILL_GRACE_MS);
    for (ProcessHandle h : tree) {
      long left = deadline - System.nanoTime();
      try {
        if (left > 0) {
          h.onExit().get(left, TimeUnit.NANOSECONDS);
        }
      } catch (TimeoutException | ExecutionException e) {
        // still alive: killed below
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (h.isAlive()) {
        h.destroyForcibly();
      }
    }
    trees.signal(root.pid(), true); // what the group started since, or ignored SIGTERM
  }

  private record Capture(String text, boolean truncated, long totalBytes) {
  }

  private Capture drain(InputStream in, String stream, CallControl control) {
    ByteArrayOutputStream kept = new ByteArrayOutputStream();
    Utf8Chunks chunks = new Utf8Chunks();
    long total = 0;
    byte[] buf = new byte[8192];
    try (in) {
      for (int n; (n = in.read(buf)) > 0; ) {
        if (control.isStreaming()) {
          control.emit(stream, chunks.decode(buf, n));
        }
        int room = capBytes - kept.size();
        if (room > 0) {
          kept.write(buf, 0, Math.min(room, n));
        }
        total += n;
      }
    } catch (IOException e) {
      // the stream closes when the process is killed: keep what arrived
    }
    String text = kept.toString(StandardCharsets.UTF_8);
    boolean truncated = total > capBytes;
    return new Capture(truncated ? text + "\n[truncated: " + total + " bytes, first " + capBytes + " kept]" : text,
      truncated, total);
  }

  private static Capture await(CompletableFuture<Capture> f) throws InterruptedException {
    try {
      return f.get(KILL_GRACE_MS + 2000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      return new Capture("", false, 0);
    }
  }
}
