package io.fleetbus.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * A process a test or the benchmark started (a hub, a node, a simulator, sshd). Its output goes to a log
 * file and is watched line by line, so the caller waits for what the process says (an event), never for a
 * fixed time. Each line is stamped with the wall-clock time it was read, which timing figures use.
 */
public final class FleetProcess implements AutoCloseable {
  /** A test run: hubs and nodes start with security fault switches only with it (FaultSwitches.TEST_RUN, same text). */
  public static final String TEST_RUN = "fleetbus.testRun";

  /**
   * The flags Hazelcast needs on Java 17 and the logging setup, for JVMs started from the test classpath; and a JIT
   * and a collector for short lives on few cores (C1 only, serial GC): a hub's start took half the CPU time with them
   * (5.2 s instead of 10.3 s on the 2-core machine), the C2 compiler threads no longer competing with the tests.
   */
  public static final List<String> JVM_FLAGS = List.of("--add-modules", "java.se",
    "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
    "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens", "java.management/sun.management=ALL-UNNAMED",
    "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED", "-Xmx256m",
    "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
    "-Dhazelcast.logging.type=slf4j",
    "-Dvertx.logger-delegate-factory-class-name=io.vertx.core.logging.SLF4JLogDelegateFactory");

  /** A line of output, when it was read (epoch milliseconds), and its number (from 0). */
  public record Line(String text, long readAtMillis, int index) {

    /** The number to wait from for lines after this one. */
    public int next() {
      return index + 1;
    }

    public boolean contains(CharSequence s) {
      return text.contains(s);
    }
  }

  private final String name;
  private final Process process;
  private final Writer stdin;
  /** Tests kill what they started (fast teardown); the benchmark lets its processes stop cleanly. */
  private final boolean killOnClose;
  private final List<Line> lines = new ArrayList<>();
  private final List<Watch> watches = new ArrayList<>();

  private record Watch(Pattern pattern, CompletableFuture<Line> found) {
  }

  private FleetProcess(String name, Process process, Path log, boolean appendLog, boolean killOnClose) throws IOException {
    this.name = name;
    this.process = process;
    this.killOnClose = killOnClose;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
      appendLog ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING);
    Thread reader = new Thread(() -> pump(out), name + "-output");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * A JVM running {@code mainClass} from this JVM's classpath with {@link #JVM_FLAGS}; a process started
   * again under the same log name appends to its log. Closing it kills it.
   */
  public static FleetProcess start(String name, String mainClass, Map<String, String> env, Path log, String... args) {
    return startWrapped(name, List.of(), mainClass, env, log, args);
  }

  /**
   * As {@link #start(String, String, Map, Path, String...)}, the JVM started by {@code wrapper} (for instance
   * {@code ip netns exec NAME}), which must exec it in place so that the process is the JVM itself.
   */
  public static FleetProcess startWrapped(String name, List<String> wrapper, String mainClass, Map<String, String> env,
                                          Path log, String... args) {
    List<String> cmd = new ArrayList<>(wrapper);
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(JVM_FLAGS);
    // a fix switched off for a test run (-Dfleetbus.fault.x=true on the test JVM) is switched off in every process,
    // and each says it is a test run: without that a hub or node refuses to start with a security switch on
    System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("fleetbus.fault."))
      .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
    cmd.add("-D" + TEST_RUN + "=true");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass);
    cmd.addAll(List.of(args));
    return launch(name, new ProcessBuilder(cmd), env, log, true, true);
  }

  /**
   * Any command, in {@code cwd}, with a fresh log. No FLEETBUS_* variable of the caller's shell reaches it
   * (each process gets its own). Closing it stops it cleanly (SIGTERM first).
   */
  public static FleetProcess start(String name, List<String> command, Map<String, String> env, Path cwd, Path log) {
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("FLEETBUS_"));
    return launch(name, pb, env, log, false, false);
  }

  private static FleetProcess launch(String name, ProcessBuilder pb, Map<String, String> env, Path log, boolean appendLog,
                                     boolean killOnClose) {
    pb.redirectErrorStream(true).environment().putAll(env);
    try {
      Files.createDirectories(log.toAbsolutePath().getParent());
      return new FleetProcess(name, pb.start(), log, appendLog, killOnClose);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + ": " + e.getMessage(), e);
    }
  }

  private void pump(Writer out) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
         out) {
      for (String read; (read = r.readLine()) != null; ) {
        String text = read;
        out.write(text);
        out.write('\n');
        out.flush();
        synchronized (this) {
          Line line = new Line(text, System.currentTimeMillis(), lines.size());
          lines.add(line);
          watches.removeIf(w -> w.pattern.matcher(text).find() && w.found.complete(line));
        }
      }
    } catch (IOException e) {
      // the process ended; waiters time out with the log tail
    }
  }

  /** How many lines were read so far: pass it to {@link #awaitLine(String, int, Duration)} to see only newer ones. */
  public synchronized int mark() {
    return lines.size();
  }

  public Line awaitLine(String regex, Duration timeout) {
    return awaitLine(regex, 0, timeout);
  }

  /** The first line at or after {@code from} that matches; fails (AssertionError) with the log tail when none comes in time. */
  public Line awaitLine(String regex, int from, Duration timeout) {
    Pattern pattern = Pattern.compile(regex);
    CompletableFuture<Line> found = new CompletableFuture<>();
    synchronized (this) {
      for (int i = from; i < lines.size(); i++) {
        if (pattern.matcher(lines.get(i).text()).find()) {
          return lines.get(i);
        }
      }
      watches.add(new Watch(pattern, found));
    }
    try {
      return found.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError(name + (process.isAlive() ? "" : " (exited)") + " did not print /" + regex + "/ within "
        + timeout.toMillis() + " ms; its last lines:\n" + tail(40));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for " + name, e);
    } catch (ExecutionException e) {
      throw new AssertionError(e.getCause());
    }
  }

  /** Writes one command line to the process's standard input. */
  public void send(String command) {
    try {
      stdin.write(command);
      stdin.write('\n');
      stdin.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(name + " does not take input any more: " + e.getMessage(), e);
    }
  }

  public synchronized String tail(int n) {
    return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()).stream().map(Line::text).toList());
  }

  public long pid() {
    return process.pid();
  }

  public String name() {
    return name;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** The exit code once the process ends by itself within {@code timeout}; fails (AssertionError) with its log tail. */
  public int awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError(name + " did not exit within " + timeout.toMillis() + " ms; its last lines:\n" + tail(40));
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for " + name + " to exit", e);
    }
  }

  /** SIGSTOP: the process hangs (no heartbeats, no answers) but keeps its sockets open. */
  public void pause() {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  public void resume() {
    signal("CONT");
  }

  private void signal(String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** SIGKILL: no shutdown hook, no goodbye. */
  public void kill() {
    process.destroyForcibly();
    waitForExit();
  }

  /** SIGTERM (the process stops cleanly), then SIGKILL if it has not ended within 20 s. */
  public void stop() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    waitForExit();
  }

  private void waitForExit() {
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    if (killOnClose) {
      kill();
    } else {
      stop();
    }
  }
}
