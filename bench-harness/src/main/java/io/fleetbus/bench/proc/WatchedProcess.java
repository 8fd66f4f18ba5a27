package io.fleetbus.bench.proc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
 * A process the benchmark started: its output goes to a log file and is watched line by line, so the
 * harness waits for what a process says (hub {@code api: …}, {@code node online …}), never for a fixed time.
 * Each line is stamped with the wall-clock time it was read, which timing figures use.
 */
public final class WatchedProcess implements AutoCloseable {
  /** A line of output, when the harness read it (epoch milliseconds), and its number (from 0). */
  public record Line(String text, long readAtMillis, int index) {

    /** The number to wait from for lines after this one. */
    public int next() {
      return index + 1;
    }
  }

  private final String name;
  private final Process process;
  private final Writer stdin;
  private final List<Line> lines = new ArrayList<>();
  private final List<Watch> watches = new ArrayList<>();

  private record Watch(Pattern pattern, CompletableFuture<Line> found) {
  }

  private WatchedProcess(String name, Process process, Path log) throws IOException {
    this.name = name;
    this.process = process;
    this.stdin = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
      StandardOpenOption.TRUNCATE_EXISTING);
    Thread reader = new Thread(() -> pump(out), name + "-output");
    reader.setDaemon(true);
    reader.start();
  }

  public static WatchedProcess start(String name, List<String> command, Map<String, String> env, Path cwd, Path log) {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).directory(cwd.toFile());
    // a FLEETBUS_* variable of the caller's shell must not steer a benchmark process: each gets its own
    pb.environment().keySet().removeIf(k -> k.startsWith("FLEETBUS_"));
    pb.environment().putAll(env);
    try {
      Files.createDirectories(log.toAbsolutePath().getParent());
      return new WatchedProcess(name, pb.start(), log);
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

  /** The first line at or after {@code from} that matches; fails with the log tail when none comes in time. */
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
      throw new IllegalStateException(name + (process.isAlive() ? "" : " (exited)") + " did not print /" + regex
        + "/ within " + timeout.toSeconds() + " s; its last lines:\n" + tail(25));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + name, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
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

  /** SIGTERM, then SIGKILL if it has not ended within 15 s. */
  public void stop() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  @Override
  public void close() {
    stop();
  }
}
