package io.fleetbus.node.jobs;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A job's output, line by line, numbered from 0 across stdout and stderr, kept in two files of at
 * most half the cap each: when the current one is full it replaces the previous one, so the oldest
 * lines go first and the whole never passes the cap. One JSON object per line; a line cut short
 * by a crash is skipped when read.
 */
final class OutputLog implements AutoCloseable {
  /** Longer lines are split, so one line can never fill a file. */
  static final int MAX_LINE_CHARS = 4096;

  private final Path current;
  private final Path previous;
  private final long segmentBytes;
  private Writer out;
  /** Closed once the job ended: a late line (a grandchild holds the pipe) opens the file just to write. */
  private boolean ended;
  private long currentBytes;
  private long currentFirstSeq;
  private long firstKeptSeq;
  private long nextSeq;

  private OutputLog(Path dir, long capBytes) {
    this.current = dir.resolve("output.log");
    this.previous = dir.resolve("output.1.log");
    this.segmentBytes = Math.max(capBytes / 2, 2L * MAX_LINE_CHARS * 6);
  }

  /** Opens the log in {@code dir}, continuing the numbering of what is already there. */
  static OutputLog open(Path dir, long capBytes) throws IOException {
    OutputLog log = new OutputLog(dir, capBytes);
    Files.createDirectories(dir);
    dropCutLine(log.current);
    List<JsonObject> older = readLines(log.previous);
    List<JsonObject> newer = readLines(log.current);
    log.currentFirstSeq = newer.isEmpty() ? lastSeq(older) + 1 : newer.get(0).getLong("seq");
    log.firstKeptSeq = older.isEmpty() ? log.currentFirstSeq : older.get(0).getLong("seq");
    log.nextSeq = newer.isEmpty() ? log.currentFirstSeq : lastSeq(newer) + 1;
    log.currentBytes = Files.isRegularFile(log.current) ? Files.size(log.current) : 0;
    return log;
  }

  /** Appends one line of {@code stream}; returns its number. */
  synchronized long append(String stream, String text, long atMs) {
    long seq = nextSeq++;
    String line = new JsonObject().put("seq", seq).put("stream", stream).put("at", atMs).put("text", text).encode() + "\n";
    long bytes = line.getBytes(StandardCharsets.UTF_8).length;
    try {
      if (currentBytes > 0 && currentBytes + bytes > segmentBytes) {
        rotate();
      }
      writer().write(line);
      out.flush();
      currentBytes += bytes;
      if (ended) {
        closeWriter();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write job output to " + current, e);
    }
    return seq;
  }

  private void rotate() throws IOException {
    closeWriter();
    Files.move(current, previous, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    firstKeptSeq = currentFirstSeq;
    currentFirstSeq = nextSeq - 1;
    currentBytes = 0;
  }

  private Writer writer() throws IOException {
    if (out == null) {
      out = new BufferedWriter(Files.newBufferedWriter(current, StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND));
    }
    return out;
  }

  /** Lines {@code offset .. offset+limit-1} of those still kept. */
  synchronized JsonObject page(long offset, int limit) throws IOException {
    JsonArray lines = new JsonArray();
    long from = Math.max(offset, firstKeptSeq);
    for (Path file : List.of(previous, current)) {
      for (JsonObject line : readLines(file)) {
        long seq = line.getLong("seq");
        if (seq >= from && lines.size() < limit) {
          lines.add(line);
        }
      }
    }
    return new JsonObject().put("lines", lines).put("offset", offset).put("limit", limit)
      .put("total", nextSeq).put("firstAvailable", firstKeptSeq)
      .put("nextOffset", lines.isEmpty() ? Math.max(offset, firstKeptSeq)
        : lines.getJsonObject(lines.size() - 1).getLong("seq") + 1);
  }

  /** The last {@code n} lines of one stream (for the error message of a failed job). */
  synchronized List<String> tail(String stream, int n) throws IOException {
    List<String> texts = new ArrayList<>();
    for (Path file : List.of(previous, current)) {
      for (JsonObject line : readLines(file)) {
        if (stream.equals(line.getString("stream"))) {
          texts.add(line.getString("text"));
        }
      }
    }
    return texts.subList(Math.max(0, texts.size() - n), texts.size());
  }

  synchronized long lineCount() {
    return nextSeq;
  }

  @Override
  public synchronized void close() {
    ended = true;
    try {
      closeWriter();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void closeWriter() throws IOException {
    if (out != null) {
      out.close();
      out = null;
    }
  }

  /** Cuts off a last line the node did not finish writing, so the next line starts on a line of its own. */
  private static void dropCutLine(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      return;
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long end = ch.size();
      ByteBuffer one = ByteBuffer.allocate(1);
      while (end > 0) {
        one.clear();
        ch.read(one, end - 1);
        if (one.get(0) == '\n') {
          break;
        }
        end--;
      }
      if (end < ch.size()) {
        ch.truncate(end);
      }
    }
  }

  private static List<JsonObject> readLines(Path file) throws IOException {
    List<JsonObject> lines = new ArrayList<>();
    if (!Files.isRegularFile(file)) {
      return lines;
    }
    for (String text : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      try {
        JsonObject line = new JsonObject(text);
        if (line.getLong("seq") != null) {
          lines.add(line);
        }
      } catch (DecodeException e) {
        // the tail of a line the node was writing when it died
      }
    }
    return lines;
  }

  private static long lastSeq(List<JsonObject> lines) {
    return lines.isEmpty() ? -1 : lines.get(lines.size() - 1).getLong("seq");
  }
}
