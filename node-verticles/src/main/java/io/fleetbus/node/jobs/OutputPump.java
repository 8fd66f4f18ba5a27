package io.fleetbus.node.jobs;

import io.fleetbus.node.tools.command.Utf8Chunks;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * Reads one output stream of a job on a thread of its own: each piece is noted as a sign of life,
 * cut into lines for the job's log, and passed on to the launching call's stream.
 */
final class OutputPump {
  private final InputStream in;
  private final String stream;
  private final OutputLog log;
  private final JobStream sink;
  private final LongConsumer onOutput;
  private final Clock clock;
  private final StringBuilder line = new StringBuilder();
  private final CompletableFuture<Void> drained = new CompletableFuture<>();
  private boolean logBroken;

  OutputPump(InputStream in, String stream, OutputLog log, JobStream sink, LongConsumer onOutput, Clock clock) {
    this.in = in;
    this.stream = stream;
    this.log = log;
    this.sink = sink;
    this.onOutput = onOutput;
    this.clock = clock;
  }

  /** Starts reading; the future completes at end of stream (the job and all that inherited the stream ended). */
  CompletableFuture<Void> start(String jobId) {
    Thread t = new Thread(this::pump, "fleetbus-job-" + jobId.substring(0, Math.min(8, jobId.length())) + "-" + stream);
    t.setDaemon(true);
    t.start();
    return drained;
  }

  private void pump() {
    Utf8Chunks decoder = new Utf8Chunks();
    byte[] buf = new byte[8192];
    try (in) {
      for (int n; (n = in.read(buf)) > 0; ) {
        long now = clock.millis();
        String text = decoder.decode(buf, n);
        onOutput.accept(now);
        keepLines(text, now);
        sink.emit(stream, text);
      }
    } catch (IOException e) {
      // the stream closes when the process tree is killed: keep what arrived
    } finally {
      try {
        if (!line.isEmpty() && !logBroken) {
          log.append(stream, line.toString(), clock.millis());
        }
      } finally {
        drained.complete(null);
      }
    }
  }

  private void keepLines(String text, long now) {
    if (logBroken) {
      return;
    }
    try {
      splitLines(text, now);
    } catch (RuntimeException e) {
      // a full or broken disk must not stop the draining, or the job would block on a full pipe
      logBroken = true;
    }
  }

  private void splitLines(String text, long now) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n') {
        log.append(stream, line.toString(), now);
        line.setLength(0);
      } else {
        line.append(c);
        if (line.length() >= OutputLog.MAX_LINE_CHARS) {
          log.append(stream, line.toString(), now);
          line.setLength(0);
        }
      }
    }
  }
}
