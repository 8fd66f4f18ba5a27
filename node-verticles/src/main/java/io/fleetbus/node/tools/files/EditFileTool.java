package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.files.AtomicFiles;
import io.fleetbus.shared.text.UnifiedDiff;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * edit_file and multi_edit: exact replacements that must each match exactly once, worked out in
 * memory first so that a failing edit leaves the file untouched, then written atomically.
 */
final class EditFileTool implements ToolHandler {
  record Edit(String target, String replacement) {
  }

  private final PathScope scope;
  private final boolean multi;

  EditFileTool(PathScope scope, boolean multi) {
    this.scope = scope;
    this.multi = multi;
  }

  /** The path scope; a file missing now answers 404, which the hub takes as "may exist by the time it runs". */
  @Override
  public void check(JsonObject args) {
    scope.existing("path", args.getString("path"));
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    String shown = args.getString("path");
    Path file = scope.existing("path", shown);
    String before = TextFile.read(file, shown);
    List<Edit> edits = new ArrayList<>();
    if (multi) {
      JsonArray list = args.getJsonArray("edits");
      for (int i = 0; i < list.size(); i++) {
        JsonObject e = list.getJsonObject(i);
        edits.add(new Edit(e.getString("target_content"), e.getString("replacement_content")));
      }
    } else {
      edits.add(new Edit(args.getString("target_content"), args.getString("replacement_content")));
    }
    String after = apply(before, edits, shown);
    JsonObject out = new JsonObject().put("path", file.toString()).put("applied", edits.size());
    if (args.getBoolean("dry_run")) {
      return out.put("dry_run", true).put("diff", UnifiedDiff.of(file.toString(), file.toString(), before, after));
    }
    AtomicFiles.write(file, after.getBytes(StandardCharsets.UTF_8));
    return out.put("message", "file edited");
  }

  /** Applies the edits in order; any edit not matching exactly once fails the whole set (409). */
  static String apply(String text, List<Edit> edits, String shown) {
    String current = text;
    for (int i = 0; i < edits.size(); i++) {
      Edit e = edits.get(i);
      int count = occurrences(current, e.target());
      if (count != 1) {
        String which = edits.size() > 1 ? "edit " + (i + 1) + " of " + edits.size() + ": " : "";
        throw FailureCode.CONFLICT.exception(which + "target_content occurs " + count + " times in '" + shown
          + "'; it must occur exactly once (add surrounding text to make it unique). Nothing was changed");
      }
      int at = current.indexOf(e.target());
      current = current.substring(0, at) + e.replacement() + current.substring(at + e.target().length());
    }
    return current;
  }

  static int occurrences(String text, String target) {
    int count = 0;
    for (int at = text.indexOf(target); at >= 0; at = text.indexOf(target, at + 1)) {
      count++;
    }
    return count;
  }
}
