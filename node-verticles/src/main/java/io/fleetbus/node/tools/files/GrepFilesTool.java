package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * grep_files: ripgrep when the node has it and may start it, the built-in search otherwise (also when
 * the tree holds folders the scope denies, which rg could not be told to skip exactly).
 */
final class GrepFilesTool implements ToolHandler {
  private static final long BUDGET_MS = 20_000;

  private final PathScope scope;
  private final HostCommands host;

  GrepFilesTool(PathScope scope, HostCommands host) {
    this.scope = scope;
    this.host = host;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    Path root = scope.existing("path", args.getString("path"));
    GrepQuery q = query(root, args);
    String engine = "java";
    List<GrepMatch> found = null;
    String stopped = null;
    if (host.spawningAllowed() && host.find("rg").isPresent() && !scope.hasDeniedInside(root)) {
      Optional<List<GrepMatch>> rg = RipGrep.search(host, q, BUDGET_MS);
      if (rg.isPresent()) {
        // rg walks on its own: what it found in a private folder (or through a second name of a private file) is dropped
        found = rg.get().stream().filter(m -> scope.allows(Path.of(m.path())) && scope.allowsInWalk(Path.of(m.path()), false))
          .toList();
        engine = "rg";
      }
    }
    if (found == null) {
      JavaGrep.Result r = JavaGrep.search(scope, q, BUDGET_MS);
      found = r.matches();
      stopped = r.stoppedBecause();
    }
    return answer(q, found, engine, stopped);
  }

  static JsonObject answer(GrepQuery q, List<GrepMatch> found, String engine, String stopped) {
    List<GrepMatch> page = found.subList(Math.min(q.offset(), found.size()), Math.min(q.offset() + q.headLimit(), found.size()));
    JsonArray matches = new JsonArray();
    page.forEach(m -> matches.add(m.toJson()));
    JsonObject out = new JsonObject().put("path", q.root().toString()).put("pattern", q.regex()).put("engine", engine)
      .put("matches", matches).put("output", page.stream().map(GrepMatch::formatted).collect(Collectors.joining("\n")))
      .put("count", page.size()).put("offset", q.offset())
      .put("truncated", found.size() > q.offset() + q.headLimit() || stopped != null);
    return stopped == null ? out : out.put("stopped", stopped);
  }

  private static GrepQuery query(Path root, JsonObject args) {
    String regex = args.getString("pattern");
    boolean ci = args.getBoolean("case_insensitive");
    Pattern pattern;
    try {
      pattern = Pattern.compile(regex, ci ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
    } catch (PatternSyntaxException e) {
      throw FailureCode.BAD_REQUEST.exception("pattern is not a valid regular expression: " + e.getDescription()
        + " near index " + e.getIndex());
    }
    String glob = args.getString("glob");
    PathMatcher gm = null;
    if (glob != null) {
      GlobFilesTool.checkRelative("glob", glob);
      if (glob.startsWith("!")) {
        throw FailureCode.BAD_REQUEST.exception("glob '" + glob + "' must name files to include, not exclude");
      }
      try {
        gm = FileSystems.getDefault().getPathMatcher("glob:" + glob);
      } catch (PatternSyntaxException e) {
        throw FailureCode.BAD_REQUEST.exception("glob '" + glob + "' is not valid: " + e.getDescription());
      }
    }
    return new GrepQuery(root, regex, pattern, glob, gm, ci, args.getInteger("offset"), args.getInteger("head_limit"));
  }
}
