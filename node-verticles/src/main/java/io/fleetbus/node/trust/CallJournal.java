package io.fleetbus.node.trust;

import io.fleetbus.shared.files.AtomicFiles;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's durable memory of the calls that change things (tier 2 and 3, and any call with an idempotency key): a
 * call id (and the caller's idempotency key) is written and flushed to disk (fsync) before the tool runs, and its result
 * after, written but not waited for on the disk: the next call's fsync, or the system's own writeback, takes it
 * there. Losing it in a power cut loses nothing that matters: the hub already holds the answer (audited before it
 * answered), and the call reads as interrupted here, so it never runs again. A second delivery of the same call — another hub, a retry, a replay after a node restart —
 * gets the first result, or 409 while it runs, and never runs the tool twice. It also arbitrates approval decisions
 * (issue 34): a hub's deny or withdrawal is journaled here as a refusal ({@link #refuse}) before any user hears of it,
 * so the first decision that reaches the node wins — a later delivery of a refused call is refused, and a refusal of a
 * call already journaled is refused with what the journal holds.
 * Blocking file I/O: workers only; synchronized because several calls may arrive at once.
 */
public final class CallJournal implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CallJournal.class);
  public static final String FILE = "calls.jsonl";
  private static final int KEEP = 2000;
  private static final int MAX_RESULT_CHARS = 256 * 1024;
  /** Writes that waited for the disk ({@link #forcedWrites}). */
  private long forced;

  /** What to do with a call: run it ({@code FRESH}), or answer from an earlier delivery. */
  public enum Kind { FRESH, RUNNING, DONE, OUTCOME_UNKNOWN, KEY_REUSED, REFUSED }

  public record Outcome(Kind kind, String firstCallId, JsonObject result) {
  }

  private static final class Entry {
    final String callId;
    final String idemKey;
    final String tool;
    final String argsSha256;
    final long startedAt;
    String state;
    JsonObject result;
    /** For a refused call: {@code {decision, by, hub, at}}, the decision that refused it. */
    JsonObject refusal;

    Entry(String callId, String idemKey, String tool, String argsSha256, long startedAt, String state) {
      this.callId = callId;
      this.idemKey = idemKey;
      this.tool = tool;
      this.argsSha256 = argsSha256;
      this.startedAt = startedAt;
      this.state = state;
    }
  }

  private final Path file;
  private final Map<String, Entry> byCall = new LinkedHashMap<>();
  private final Map<String, String> byIdemKey = new HashMap<>();
  private FileChannel out;
  private int lines;

  private CallJournal(Path file) {
    this.file = file;
  }

  /** Opens (or creates) the journal; calls that were running when the last process died become OUTCOME_UNKNOWN. */
  public static CallJournal open(Path trustDir) throws IOException {
    AtomicFiles.privateDir(trustDir);
    CallJournal journal = new CallJournal(trustDir.resolve(FILE));
    journal.load();
    journal.rewrite();
    return journal;
  }

  public synchronized Outcome begin(ToolCall call, String argsSha256) throws IOException {
    String idemKey = call.idempotencyKey() == null ? null : call.principal() + "\u0000" + call.idempotencyKey();
    Entry earlier = byCall.get(call.callId());
    if (earlier == null && idemKey != null) {
      String first = byIdemKey.get(idemKey);
      earlier = first == null ? null : byCall.get(first);
    }
    if (earlier != null) {
      if ("refused".equals(earlier.state)) {
        return new Outcome(Kind.REFUSED, earlier.callId, earlier.refusal);
      }
      if (!Objects.equals(earlier.tool, call.tool()) || !Objects.equals(earlier.argsSha256, argsSha256)) {
        return new Outcome(Kind.KEY_REUSED, earlier.callId, null);
      }
      Kind kind = switch (earlier.state) {
        case "running" -> Kind.RUNNING;
        case "done" -> Kind.DONE;
        default -> Kind.OUTCOME_UNKNOWN;
      };
      return new Outcome(kind, earlier.callId, earlier.result);
    }
    Entry e = new Entry(call.callId(), idemKey, call.tool(), argsSha256, System.currentTimeMillis(), "running");
    append(new JsonObject().put("e", "start").put("callId", e.callId).put("idem", idemKey).put("tool", e.tool)
      .put("args", argsSha256).put("at", e.startedAt), true);
    remember(e);
    return new Outcome(Kind.FRESH, e.callId, null);
  }

  /**
   * Journals (fsync) that call {@code callId} must never run: a hub's deny or withdrawal of its approval, {@code
   * decision} = {@code {decision, by, hub, at}}. Null when this refusal is now the journal's word on the call; else what
   * the journal already holds for it ({@link #status}): the call was delivered first (it runs or ran), or another
   * decision refused it first.
   */
  public synchronized JsonObject refuse(String callId, JsonObject decision) throws IOException {
    if (byCall.containsKey(callId)) {
      return status(callId);
    }
    Entry e = new Entry(callId, null, null, null, System.currentTimeMillis(), "refused");
    e.refusal = decision.copy();
    append(refuseLine(e), true);
    remember(e);
    return null;
  }

  private static JsonObject refuseLine(Entry e) {
    return new JsonObject().put("e", "refuse").put("callId", e.callId).put("at", e.startedAt).put("refusal", e.refusal);
  }

  /**
   * What the journal knows of a call: {@code running}, {@code done} (with the result when it was small enough to
   * keep), {@code interrupted} (it was running when the node process died: never run again), or null.
   */
  public synchronized JsonObject status(String callId) {
    Entry e = byCall.get(callId);
    if (e == null) {
      return null;
    }
    String state = switch (e.state) {
      case "running", "done", "refused" -> e.state;
      default -> "interrupted";
    };
    return new JsonObject().put("callId", callId).put("tool", e.tool).put("state", state).put("startedAt", e.startedAt)
      .put("result", e.result).put("refusal", e.refusal);
  }

  public synchronized void finish(String callId, ToolResult result) throws IOException {
    Entry e = byCall.get(callId);
    if (e == null) {
      return;
    }
    JsonObject kept = result.withProof(null).toJson();
    if (kept.encode().length() > MAX_RESULT_CHARS) {
      kept = null;
    }
    e.state = "done";
    e.result = kept;
    append(new JsonObject().put("e", "end").put("callId", callId).put("result", kept), false);
    if (lines > 2 * KEEP) {
      rewrite();
    }
  }

  private void remember(Entry e) {
    byCall.put(e.callId, e);
    if (e.idemKey != null) {
      byIdemKey.putIfAbsent(e.idemKey, e.callId);
    }
    while (byCall.size() > KEEP) {
      Entry oldest = byCall.values().iterator().next();
      byCall.remove(oldest.callId);
      if (oldest.idemKey != null) {
        byIdemKey.remove(oldest.idemKey, oldest.callId);
      }
    }
  }

  private void load() throws IOException {
    if (!Files.exists(file)) {
      return;
    }
    List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (String line : all) {
      JsonObject j;
      try {
        j = new JsonObject(line);
      } catch (DecodeException e) {
        continue; // a line cut short by a crash
      }
      if ("start".equals(j.getString("e"))) {
        remember(new Entry(j.getString("callId"), j.getString("idem"), j.getString("tool"), j.getString("args"),
          j.getLong("at", 0L), "unknown"));
      } else if ("refuse".equals(j.getString("e"))) {
        Entry e = new Entry(j.getString("callId"), null, null, null, j.getLong("at", 0L), "refused");
        e.refusal = j.getJsonObject("refusal");
        remember(e);
      } else if ("end".equals(j.getString("e")) && byCall.containsKey(j.getString("callId"))) {
        Entry e = byCall.get(j.getString("callId"));
        e.state = "done";
        e.result = j.getJsonObject("result");
      }
    }
    byCall.values().stream().filter(e -> "unknown".equals(e.state) && System.currentTimeMillis() - e.startedAt < 86_400_000L)
      .forEach(e -> LOG.warn("call interrupted by the node's restart; it is not run again [call: {}, tool: {}, startedAt: {}]",
        e.callId, e.tool, java.time.Instant.ofEpochMilli(e.startedAt)));
  }

  /** Writes the kept entries afresh (owner-only), dropping forgotten ones. */
  private void rewrite() throws IOException {
    StringBuilder text = new StringBuilder();
    for (Entry e : byCall.values()) {
      if ("refused".equals(e.state)) {
        text.append(refuseLine(e).encode()).append('\n');
        continue;
      }
      text.append(new JsonObject().put("e", "start").put("callId", e.callId).put("idem", e.idemKey).put("tool", e.tool)
        .put("args", e.argsSha256).put("at", e.startedAt).encode()).append('\n');
      if ("done".equals(e.state)) {
        text.append(new JsonObject().put("e", "end").put("callId", e.callId).put("result", e.result).encode()).append('\n');
      }
    }
    if (out != null) {
      out.close();
    }
    AtomicFiles.writePrivate(file, text.toString());
    out = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    lines = byCall.size();
  }

  /** {@code durable}: returns only once the line (and every line before it) is on the disk. */
  private void append(JsonObject line, boolean durable) throws IOException {
    ByteBuffer buf = ByteBuffer.wrap((line.encode() + "\n").getBytes(StandardCharsets.UTF_8));
    while (buf.hasRemaining()) {
      out.write(buf);
    }
    if (durable) {
      out.force(false);
      forced++;
    }
    lines++;
  }

  /** How many writes waited for the disk (fsync) since the journal was opened: one per delivered call, none for its end. */
  synchronized long forcedWrites() {
    return forced;
  }

  @Override
  public synchronized void close() throws IOException {
    if (out != null) {
      out.close();
      out = null;
    }
  }
}
