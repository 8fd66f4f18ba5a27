package io.fleetbus.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * A hub or node started as its own JVM from the test classpath. Its output goes to a log file and is
 * watched line by line, so a test waits for what the process says (an event), never for a fixed time.
 */
public final class FleetProcess implements AutoCloseable {
  static final List<String> JVM_FLAGS = List.of("--add-modules", "java.se",
    "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
    "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens", "java.management/sun.management=ALL-UNNAMED",
    "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED", "-Xmx256m",
    "-Dhazelcast.logging.type=slf4j",
    "-Dvertx.logger-delegate-factory-class-name=io.vertx.core.logging.SLF4JLogDelegateFactory");

  private final String name;
  private final Process process;
  private final Path log;
  private final List<String> lines = new ArrayList<>();
  private final List<Watch> watches = new ArrayList<>();

  private record Watch(Pattern pattern, int from, CompletableFuture<String> found) {
  }

  private FleetProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
    Thread reader = new Thread(this::pump, name + "-output");
    reader.setDaemon(true);
    reader.start();
  }

  public static FleetProcess start(String name, String mainClass, Map<String, String> env, Path log, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(JVM_FLAGS);
    // a fix switched off for a test run (-Dfleetbus.fault.x=true on the test JVM) is switched off in every process
    System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("fleetbus.fault."))
      .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass);
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(env);
    try {
      Files.createDirectories(log.getParent());
      return new FleetProcess(name, pb.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void pump() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
         Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8,
           java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND)) {
      for (String line; (line = r.readLine()) != null; ) {
        out.write(line);
        out.write('\n');
        out.flush();
        synchronized (this) {
          lines.add(line);
          for (Watch w : watches) {
            if (!w.found.isDone() && w.pattern.matcher(line).find()) {
              w.found.complete(line);
            }
          }
        }
      }
    } catch (IOException e) {
      // the process ended
    }
  }

  /** The line count so far: pass it to {@link #awaitLine(String, int, Duration)} to wait only for newer lines. */
  public synchronized int mark() {
    return lines.size();
  }

  public String awaitLine(String regex, Duration timeout) {
    return awaitLine(regex, 0, timeout);
  }

  /** Waits for a line matching {@code regex} printed at or after line {@code from}; fails with the log tail. */
  public String awaitLine(String regex, int from, Duration timeout) {
    Pattern p = Pattern.compile(regex);
    CompletableFuture<String> found = new CompletableFuture<>();
    synchronized (this) {
      for (int i = from; i < lines.size(); i++) {
        if (p.matcher(lines.get(i)).find()) {
          return lines.get(i);
        }
      }
      watches.add(new Watch(p, from, found));
    }
    try {
      return found.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError(name + " did not print /" + regex + "/ within " + timeout.toMillis() + " ms; last lines:\n" + tail(40));
    } catch (InterruptedException | ExecutionException e) {
      throw new AssertionError(e);
    }
  }

  public synchronized String tail(int n) {
    return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** SIGSTOP: the process hangs (no heartbeats, no answers) but keeps its sockets open. */
  public void pause() {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  public void resume() {
    signal("CONT");
  }

  private void signal(String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
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

  /** SIGTERM: the process stops cleanly. */
  public void stop() {
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
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
  }
}
