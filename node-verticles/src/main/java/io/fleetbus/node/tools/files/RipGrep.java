package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.command.HostCommands;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * ripgrep as the engine: its JSON output is read as it streams and the process is stopped as soon as
 * enough matches arrived. Flags make it behave like the built-in search: hidden files searched,
 * ignore files not consulted, VCS folders skipped, links not followed, files in path order.
 */
final class RipGrep {
  private RipGrep() {
  }

  /** The matches, or empty when rg refused the query (e.g. a Java-only regex feature). */
  static Optional<List<GrepMatch>> search(HostCommands host, GrepQuery q, long budgetMs) throws IOException {
    List<String> argv = new ArrayList<>(List.of(host.find("rg").orElseThrow().toString(), "--json", "--no-config",
      "--sort", "path", "--hidden", "--no-ignore", "--no-messages"));
    for (String vcs : FileWalk.VCS_FOLDERS) {
      argv.add("--glob");
      argv.add("!" + vcs);
    }
    if (q.glob() != null) {
      argv.add("--glob");
      argv.add(q.glob());
    }
    if (q.caseInsensitive()) {
      argv.add("--ignore-case");
    }
    argv.addAll(List.of("--regexp", q.regex(), "--", q.root().toString()));
    Process p = host.start(argv);
    // a search that prints nothing for a long time would block the read below: the watchdog ends it
    CompletableFuture.delayedExecutor(budgetMs, TimeUnit.MILLISECONDS).execute(p::destroyForcibly);
    List<GrepMatch> found = new ArrayList<>();
    long deadline = System.nanoTime() + budgetMs * 1_000_000;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; found.size() < q.wanted() && System.nanoTime() < deadline && (line = r.readLine()) != null; ) {
        GrepMatch m = parse(line);
        if (m != null) {
          found.add(m);
        }
      }
    } finally {
      p.destroy();
    }
    try {
      if (p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 2 && found.isEmpty()) {
        return Optional.empty();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return Optional.of(found);
  }

  /** One line of rg --json: a match message becomes a GrepMatch, anything else null. */
  static GrepMatch parse(String jsonLine) {
    JsonObject msg;
    try {
      msg = new JsonObject(jsonLine);
    } catch (DecodeException e) {
      return null;
    }
    if (!"match".equals(msg.getString("type"))) {
      return null;
    }
    JsonObject data = msg.getJsonObject("data");
    String path = data.getJsonObject("path").getString("text");
    JsonObject lines = data.getJsonObject("lines");
    String text = lines.getString("text");
    if (path == null || text == null) {
      return null; // not UTF-8: rg sends bytes in base64; the built-in search would skip such lines too
    }
    text = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    return GrepMatch.of(path, data.getLong("line_number", 0L), text);
  }
}
