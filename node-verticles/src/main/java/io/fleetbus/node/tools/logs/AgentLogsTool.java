package io.fleetbus.node.tools.logs;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.shared.trust.SecretMasker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * get_agent_logs: the tail of the node's own log, optionally only lines at or above a severity. A
 * line without a level (a stack trace line) belongs to the entry above it.
 */
public final class AgentLogsTool implements ToolHandler {
  private static final Pattern LEVEL = Pattern.compile("^\\S+\\s+(ERROR|WARN|INFO|DEBUG|TRACE)\\b");
  private static final Map<String, Integer> RANK = Map.of("TRACE", 0, "DEBUG", 1, "INFO", 2, "WARN", 3, "WARNING", 3,
    "ERROR", 4);
  /** Lines read from the end before filtering, so a rare level still finds its entries. */
  private static final int SCAN_LINES = 5000;

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    Path file = AgentLogFile.of(ctx.settings().dataDir());
    int max = args.getInteger("max_lines");
    String level = args.getString("level");
    JsonObject out = new JsonObject().put("file", file.toString());
    if (!Files.isRegularFile(file)) {
      return out.put("lines", new JsonArray()).put("count", 0).put("note", "the agent has not written a log file yet");
    }
    int min = level == null ? 0 : RANK.get(level.toUpperCase(Locale.ROOT));
    List<String> kept = new ArrayList<>();
    int current = 2;
    for (String line : LogTail.last(file, level == null ? max : SCAN_LINES)) {
      Matcher m = LEVEL.matcher(line);
      if (m.find()) {
        current = RANK.get(m.group(1));
      }
      if (current >= min) {
        kept.add(SecretMasker.maskLine(line));
      }
    }
    List<String> last = kept.subList(Math.max(0, kept.size() - max), kept.size());
    return out.put("lines", new JsonArray(new ArrayList<>(last))).put("count", last.size());
  }
}
