package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;

/** glob_files: files under a folder whose path relative to it matches a glob; at most 500. */
final class GlobFilesTool implements ToolHandler {
  static final int MAX_RESULTS = 500;
  private static final long BUDGET_MS = 20_000;

  private final PathScope scope;

  GlobFilesTool(PathScope scope) {
    this.scope = scope;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    Path root = scope.existing("path", args.getString("path"));
    if (!Files.isDirectory(root)) {
      throw FailureCode.BAD_REQUEST.exception("path '" + args.getString("path") + "' is not a folder");
    }
    String pattern = args.getString("pattern");
    PathMatcher matcher = matcher(pattern);
    JsonArray files = new JsonArray();
    boolean[] more = {false};
    FileWalk.Outcome outcome = new FileWalk(scope, BUDGET_MS).walk(root, (file, attrs) -> {
      if (matcher.matches(root.relativize(file))) {
        if (files.size() == MAX_RESULTS) {
          more[0] = true;
          return false;
        }
        files.add(file.toString());
      }
      return true;
    });
    JsonObject out = new JsonObject().put("path", root.toString()).put("pattern", pattern).put("files", files)
      .put("count", files.size()).put("truncated", more[0] || outcome.stoppedBecause() != null);
    return outcome.stoppedBecause() != null && !more[0] ? out.put("stopped", outcome.stoppedBecause()) : out;
  }

  /** A glob relative to the search folder; "**&#47;x" also matches x at the top, as people expect. */
  static PathMatcher matcher(String pattern) {
    checkRelative("pattern", pattern);
    try {
      PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + pattern);
      if (pattern.startsWith("**/")) {
        PathMatcher top = FileSystems.getDefault().getPathMatcher("glob:" + pattern.substring(3));
        return p -> m.matches(p) || top.matches(p);
      }
      return m;
    } catch (IllegalArgumentException e) {
      throw FailureCode.BAD_REQUEST.exception("pattern '" + pattern + "' is not a valid glob: " + e.getMessage());
    }
  }

  /** A glob may only look down from the search folder. */
  static void checkRelative(String field, String glob) {
    if (glob.indexOf(0) >= 0 || glob.startsWith("/") || glob.contains("\\")) {
      throw FailureCode.BAD_REQUEST.exception(field + " '" + glob.replace("\0", "\\0")
        + "' must be relative to path, with '/' separators and no NUL");
    }
    for (String segment : glob.split("/")) {
      if (segment.equals("..") || segment.equals(".")) {
        throw FailureCode.BAD_REQUEST.exception(field + " '" + glob + "' must not contain '.' or '..' segments");
      }
    }
  }
}
