package io.fleetbus.hub.approval;

import io.fleetbus.hub.routing.RoutingBus;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.text.UnifiedDiff;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.UUID;

/**
 * What a file tool (write_file, edit_file, multi_edit) would change, as a unified diff against the
 * file's current content, fetched read-only through the node's {@code read_file} when the catalogue has
 * it. The approver sees exactly the lines that will change, or why they cannot be shown.
 */
final class FileChangePreview {
  static final List<String> TOOLS = List.of("write_file", "edit_file", "multi_edit");
  private static final String READER = "read_file";
  private static final long READ_TIMEOUT_MS = 10_000;

  private final Vertx vertx;
  private final ToolCatalog catalog;

  FileChangePreview(Vertx vertx, ToolCatalog catalog) {
    this.vertx = vertx;
    this.catalog = catalog;
  }

  /** The current content as far as it can be known: text, or null with a note saying why not. */
  record Current(String text, String note) {
  }

  Future<String> describe(ToolCall call, String tool) {
    String path = call.args().getString("path", "");
    // a diff of a large file is real CPU work: off the event loop
    return current(call, path).compose(cur -> vertx.executeBlocking(() -> render(tool, call.args(), path, cur), false));
  }

  private Future<Current> current(ToolCall call, String path) {
    if (catalog.find(READER).isEmpty()) {
      return Future.succeededFuture(new Current(null, "current content not fetched: " + READER
        + " is not in this hub's catalogue"));
    }
    ToolCall read = new ToolCall(UUID.randomUUID().toString(), null, "hub:approval-preview", List.of("viewer"), READER,
      new JsonObject().put("path", path), call.nodeId(), null, READ_TIMEOUT_MS, false, null);
    return RoutingBus.client(vertx).route(read)
      .map(FileChangePreview::fromReadResult)
      .recover(err -> Future.succeededFuture(FailureCode.of(err) == FailureCode.NOT_FOUND
        ? new Current("", "the file does not exist yet")
        : new Current(null, "current content unavailable: " + err.getMessage())));
  }

  static Current fromReadResult(ToolResult r) {
    JsonObject data = r.data() == null ? new JsonObject() : r.data();
    if (!r.isOk()) {
      return r.errorCode() != null && r.errorCode() == FailureCode.NOT_FOUND.code
        ? new Current("", "the file does not exist yet") : new Current(null, "current content unavailable: " + r.errorMessage());
    }
    if ("base64".equals(data.getString("encoding")) || data.getBoolean("binary", false)) {
      return new Current(null, "the file is binary; no diff shown");
    }
    String text = data.getString("content", data.getString("text"));
    if (text == null) {
      return new Current(null, "read_file returned no text content");
    }
    return new Current(text, data.getBoolean("truncated", false)
      ? "the current file was longer than read_file returns; the diff covers its first part only" : null);
  }

  /** The summary text: what changes where, as a diff, plus any note on how far it can be trusted. */
  static String render(String tool, JsonObject args, String path, Current current) {
    StringBuilder out = new StringBuilder();
    if (current.note() != null) {
      out.append("(").append(current.note()).append(")\n");
    }
    String before = current.text();
    if (before == null) {
      if (!"write_file".equals(tool)) {
        // the whole file is unknown: show each edit on its own
        for (JsonObject edit : edits(tool, args)) {
          out.append(UnifiedDiff.of("a/" + path + " (excerpt)", "b/" + path + " (excerpt)", withNewline(target(edit)),
            withNewline(replacement(edit))));
        }
        return out.toString();
      }
      before = "";
    }
    try {
      String after = apply(tool, args, before);
      String diff = UnifiedDiff.of("a/" + path, "b/" + path, before, after);
      return out.append(diff.isEmpty() ? "(no change: the file already has this content)\n" : diff).toString();
    } catch (IllegalArgumentException e) {
      return out.append("the edit would fail: ").append(e.getMessage()).append('\n').toString();
    }
  }

  /** The file after the tool ran, computed the way the tool will: each target must occur exactly once. */
  static String apply(String tool, JsonObject args, String current) {
    if ("write_file".equals(tool)) {
      return args.getString("content", "");
    }
    String text = current;
    int n = 0;
    for (JsonObject edit : edits(tool, args)) {
      n++;
      String target = target(edit);
      String replacement = replacement(edit);
      if (target == null || target.isEmpty()) {
        throw new IllegalArgumentException("edit " + n + " has no text to replace");
      }
      int first = text.indexOf(target);
      if (first < 0) {
        throw new IllegalArgumentException("edit " + n + ": the text to replace does not occur in the file");
      }
      if (edit.getBoolean("replace_all", false)) {
        text = text.replace(target, replacement);
      } else if (text.indexOf(target, first + 1) >= 0) {
        throw new IllegalArgumentException("edit " + n + ": the text to replace occurs more than once");
      } else {
        text = text.substring(0, first) + replacement + text.substring(first + target.length());
      }
    }
    return text;
  }

  private static List<JsonObject> edits(String tool, JsonObject args) {
    if ("multi_edit".equals(tool)) {
      JsonArray edits = args.getJsonArray("edits", new JsonArray());
      return edits.stream().filter(JsonObject.class::isInstance).map(JsonObject.class::cast).toList();
    }
    return List.of(args);
  }

  // the file tools' field names follow the seeds; accept both spellings in use
  private static String target(JsonObject edit) {
    return first(edit, "target_content", "old_string", "old_text");
  }

  private static String replacement(JsonObject edit) {
    String r = first(edit, "replacement_content", "new_string", "new_text");
    return r == null ? "" : r;
  }

  private static String first(JsonObject j, String... keys) {
    for (String k : keys) {
      if (j.getValue(k) instanceof String s) {
        return s;
      }
    }
    return null;
  }

  private static String withNewline(String s) {
    return s == null || s.endsWith("\n") ? s : s + "\n";
  }
}
