package io.fleetbus.node.tools.env;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.trust.SecretMasker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/** get_env: the agent's environment or a .env file in scope, secret-looking values masked. */
public final class GetEnvTool implements ToolHandler {
  private static final long MAX_ENV_FILE = 1024 * 1024;

  private final PathScope scope;
  private final Supplier<Map<String, String>> environment;

  public GetEnvTool(PathScope scope) {
    this(scope, System::getenv);
  }

  GetEnvTool(PathScope scope, Supplier<Map<String, String>> environment) {
    this.scope = scope;
    this.environment = environment;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    boolean mask = args.getBoolean("maskSecrets");
    if (!mask && !ctx.settings().tools().envAllowUnmasked()) {
      throw FailureCode.FORBIDDEN.exception("maskSecrets=false is refused: this node's config does not set"
        + " env.allowUnmasked");
    }
    String source = args.getString("source");
    Map<String, String> vars = source == null ? new TreeMap<>(environment.get()) : dotEnv(source);
    JsonArray keys = args.getJsonArray("keys");
    Set<String> wanted = keys == null ? null : new HashSet<>(keys.getList().stream().map(String::valueOf).toList());
    JsonObject out = new JsonObject();
    JsonArray masked = new JsonArray();
    vars.forEach((k, v) -> {
      if (wanted != null && !wanted.contains(k)) {
        return;
      }
      String shown = mask ? SecretMasker.maskValue(k, v) : v;
      if (!java.util.Objects.equals(shown, v)) {
        masked.add(k);
      }
      out.put(k, shown);
    });
    return new JsonObject().put("source", source == null ? "agent environment" : source).put("variables", out)
      .put("masked", masked).put("count", out.size());
  }

  private Map<String, String> dotEnv(String source) throws IOException {
    Path file = scope.existing("source", source);
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw FailureCode.BAD_REQUEST.exception("source '" + source + "' is not a regular file");
    }
    if (Files.size(file) > MAX_ENV_FILE) {
      throw FailureCode.TOO_LARGE.exception("source '" + source + "' is larger than " + MAX_ENV_FILE + " bytes");
    }
    return parse(Files.readAllLines(file, StandardCharsets.UTF_8));
  }

  /** KEY=VALUE lines; '#' comments, 'export ' prefixes and surrounding quotes are dropped. */
  static Map<String, String> parse(List<String> lines) {
    Map<String, String> vars = new LinkedHashMap<>();
    for (String raw : lines) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith("export ")) {
        line = line.substring(7).strip();
      }
      int eq = line.indexOf('=');
      if (eq <= 0) {
        continue;
      }
      String key = line.substring(0, eq).strip();
      String value = line.substring(eq + 1).strip();
      if (value.length() >= 2 && (value.startsWith("\"") && value.endsWith("\"") || value.startsWith("'") && value.endsWith("'"))) {
        value = value.substring(1, value.length() - 1);
      } else if (value.contains(" #")) {
        value = value.substring(0, value.indexOf(" #")).strip();
      }
      vars.put(key, value);
    }
    return vars;
  }
}
