package io.fleetbus.node.tools.logs;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.trust.SecretMasker;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * read_logs: the tail of a log file that both the path scope and the node's {@code logs.paths} globs
 * allow (as written and as the real file), filtered, optionally reduced to one JSON field, masked.
 */
public final class ReadLogsTool implements ToolHandler {
  private final PathScope scope;
  private final java.util.function.Supplier<List<String>> globSource;
  private final int defaultLines;
  private volatile List<String> globs = List.of();
  private List<PathMatcher> matchers = List.of();

  public ReadLogsTool(PathScope scope, List<String> logGlobs, int defaultLines) {
    this(scope, () -> logGlobs, defaultLines);
  }

  /** With log globs the hub may change at run time (config_update logPaths). */
  public ReadLogsTool(PathScope scope, java.util.function.Supplier<List<String>> logGlobs, int defaultLines) {
    this.scope = scope;
    this.globSource = logGlobs;
    this.defaultLines = defaultLines;
  }

  /** Compiles the globs again only when they changed. */
  private synchronized List<PathMatcher> matchers() {
    List<String> now = globSource.get();
    if (!now.equals(globs)) {
      globs = List.copyOf(now);
      matchers = globs.stream().map(g -> FileSystems.getDefault().getPathMatcher("glob:" + g)).toList();
    }
    return matchers;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    String shown = args.getString("path");
    Path file = scope.existing("path", shown);
    if (!allowedLog(Path.of(shown)) || !allowedLog(file)) {
      throw FailureCode.FORBIDDEN.exception("path '" + shown + "' is not a log this node shares: logs.paths allows " + globs);
    }
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw FailureCode.BAD_REQUEST.exception("path '" + shown + "' is not a regular file");
    }
    int lines = args.getInteger("lines", defaultLines);
    List<String> tail = LogTail.last(file, lines);
    Predicate<String> keep = filter(args.getString("filter"), args.getBoolean("regex"));
    String field = args.getString("jsonField");
    JsonArray out = new JsonArray();
    for (String line : tail) {
      if (!keep.test(line)) {
        continue;
      }
      String value = field == null ? line : field(line, field);
      if (value != null) {
        out.add(SecretMasker.maskLine(value));
      }
    }
    return new JsonObject().put("path", file.toString()).put("lines", out).put("total", tail.size())
      .put("filtered", out.size());
  }

  private boolean allowedLog(Path p) {
    return matchers().stream().anyMatch(m -> m.matches(p));
  }

  private static Predicate<String> filter(String filter, boolean regex) {
    if (filter == null) {
      return l -> true;
    }
    if (!regex) {
      return l -> l.contains(filter);
    }
    try {
      Pattern p = Pattern.compile(filter);
      return l -> p.matcher(l).find();
    } catch (PatternSyntaxException e) {
      throw FailureCode.BAD_REQUEST.exception("filter is not a valid regular expression: " + e.getDescription());
    }
  }

  /** One dot-separated field of a JSON line, as text; null when the line is not JSON or lacks it. */
  static String field(String line, String path) {
    Object v;
    try {
      v = new JsonObject(line);
    } catch (DecodeException | ClassCastException e) {
      return null;
    }
    for (String part : path.split("\\.")) {
      if (!(v instanceof JsonObject o) || !o.containsKey(part)) {
        return null;
      }
      v = o.getValue(part);
    }
    return v == null ? null : v instanceof String s ? s : v.toString();
  }
}
