package io.fleetbus.shared.catalog;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The tool catalogue: one JSON file per tool (name, tier, schema, …) listed in
 * {@code fleetbus/tools/index.txt}. Safe to share between verticles: only tiers can change after loading
 * ({@link #applyTierOverrides}), and readers always see one consistent snapshot.
 */
public final class ToolCatalog {
  private static final String ROOT = "/fleetbus/tools/";

  /** The tools as shipped; tier overrides are applied on top of these, never on top of each other. */
  private final Map<String, ToolSpec> shipped;
  /** What callers see: swapped whole (one volatile write) when the hub's config moves tools between tiers. */
  private volatile Map<String, ToolSpec> byName;
  private final Map<String, String> aliasToName;
  private final Map<String, SchemaCheck> validators;
  /** Seed tools fleetbus does not offer, by name and alias: what a call to one is told instead of "unknown tool". */
  private static final Map<String, JsonObject> UNAVAILABLE = unavailableTools();

  private ToolCatalog(Map<String, ToolSpec> byName) {
    this.shipped = Collections.unmodifiableMap(byName);
    this.byName = shipped;
    Map<String, String> aliases = new LinkedHashMap<>();
    Map<String, SchemaCheck> vals = new LinkedHashMap<>();
    for (ToolSpec spec : byName.values()) {
      aliases.put(spec.name(), spec.name());
      for (String alias : spec.aliases()) {
        String previous = aliases.put(alias, spec.name());
        if (previous != null && !previous.equals(spec.name())) {
          throw new IllegalStateException("alias " + alias + " names both " + previous + " and " + spec.name());
        }
      }
      // the published schema stays pristine: SchemaCheck compiles a copy (the validator annotates what it compiles)
      vals.put(spec.name(), new SchemaCheck(spec.name(), spec.inputSchema()));
    }
    this.aliasToName = Collections.unmodifiableMap(aliases);
    this.validators = Collections.unmodifiableMap(vals);
  }

  /** Loads the catalogue shipped in shared-codecs. */
  public static ToolCatalog load() {
    Map<String, ToolSpec> specs = new LinkedHashMap<>();
    for (String file : indexEntries()) {
      JsonObject json = new JsonObject(read(ROOT + file));
      ToolSpec spec = ToolSpec.fromJson(json);
      if (spec.name() == null || spec.inputSchema() == null || spec.tier() < 1 || spec.tier() > 3) {
        throw new IllegalStateException("tool file " + file + " needs name, tier 1-3 and inputSchema");
      }
      specs.put(spec.name(), spec);
    }
    return new ToolCatalog(specs);
  }

  /** The same catalogue with some tools moved to other tiers (hub config {@code tierOverrides}). */
  public ToolCatalog withTierOverrides(JsonObject overrides) {
    if (overrides == null || overrides.isEmpty()) {
      return this;
    }
    return new ToolCatalog(overridden(overrides));
  }

  /**
   * Moves tools between tiers in this catalogue, for everyone holding it, from the shipped tiers plus
   * {@code overrides} (a reloaded hub config). Checked first: a bad override throws and changes nothing.
   */
  public void applyTierOverrides(JsonObject overrides) {
    byName = overrides == null || overrides.isEmpty() ? shipped : Collections.unmodifiableMap(overridden(overrides));
  }

  private Map<String, ToolSpec> overridden(JsonObject overrides) {
    Map<String, ToolSpec> specs = new LinkedHashMap<>(shipped);
    for (String key : overrides.fieldNames()) {
      String name = aliasToName.get(key);
      if (name == null) {
        throw new IllegalArgumentException("tierOverrides names unknown tool " + key);
      }
      if (!(overrides.getValue(key) instanceof Integer tier) || tier < 1 || tier > 3) {
        throw new IllegalArgumentException("tierOverrides." + key + " must be 1, 2 or 3, not " + overrides.getValue(key));
      }
      specs.put(name, shipped.get(name).withTier(tier));
    }
    return specs;
  }

  /** A tool by its name or one of its aliases. */
  public Optional<ToolSpec> find(String nameOrAlias) {
    String name = nameOrAlias == null ? null : aliasToName.get(nameOrAlias);
    return Optional.ofNullable(name == null ? null : byName.get(name));
  }

  /**
   * A tool by name or alias; 404 for an unknown name. A tool the seeds name that fleetbus does not offer — Windows or
   * desktop only, or planned for later (TOOLS.md) — is 400 naming the platform that has it (501 Not Implemented would
   * fit better, but the failure codes of DESIGN.md have none; 400 is what a tool called on a platform without it gets).
   */
  public ToolSpec require(String nameOrAlias) {
    return find(nameOrAlias).orElseThrow(() -> {
      JsonObject elsewhere = nameOrAlias == null ? null : UNAVAILABLE.get(nameOrAlias);
      if (elsewhere != null) {
        return FailureCode.BAD_REQUEST.exception(unavailable(nameOrAlias, elsewhere));
      }
      return FailureCode.NOT_FOUND.exception("unknown tool '" + nameOrAlias + "': GET /api/v1/tools lists the tools");
    });
  }

  private static String unavailable(String asked, JsonObject tool) {
    String hint = tool.getString("hint") == null ? "" : " (" + tool.getString("hint") + ")";
    if (tool.getBoolean("later", false)) {
      return "`" + asked + "` is not implemented in fleetbus yet: it is planned for a later release on every platform"
        + hint;
    }
    List<String> platforms = tool.getJsonArray("platforms", new io.vertx.core.json.JsonArray()).stream()
      .map(String::valueOf).toList();
    return "`" + asked + "` is not available on `linux` or `macos`: it runs on " + String.join(" / ", platforms)
      + " only, and fleetbus does not offer it there yet" + hint;
  }

  private static Map<String, JsonObject> unavailableTools() {
    Map<String, JsonObject> out = new LinkedHashMap<>();
    for (Object o : new JsonObject(read("/fleetbus/unavailable-tools.json")).getJsonArray("tools")) {
      JsonObject tool = (JsonObject) o;
      out.put(tool.getString("name"), tool);
      tool.getJsonArray("aliases", new io.vertx.core.json.JsonArray()).forEach(a -> out.put((String) a, tool));
    }
    return Collections.unmodifiableMap(out);
  }

  public Collection<ToolSpec> all() {
    return byName.values();
  }

  /**
   * Checks arguments against the tool's schema and returns them with the schema's top-level defaults
   * filled in. Throws a 400 {@link io.fleetbus.shared.bus.FleetException} naming each field and its rule.
   */
  public JsonObject validate(ToolSpec spec, JsonObject args) {
    JsonObject input = args == null ? new JsonObject() : args;
    validators.get(spec.name()).check(input, "invalid arguments for " + spec.name());
    return withDefaults(spec.inputSchema(), input);
  }

  /** What is wrong with {@code args} for the tool, each naming its field; empty when they match its schema. */
  public List<String> problems(ToolSpec spec, JsonObject args) {
    return validators.get(spec.name()).problems(args == null ? new JsonObject() : args);
  }

  private static JsonObject withDefaults(JsonObject schema, JsonObject args) {
    JsonObject props = schema.getJsonObject("properties");
    if (props == null) {
      return args;
    }
    JsonObject filled = null;
    for (String key : props.fieldNames()) {
      Object def = props.getJsonObject(key).getValue("default");
      if (def != null && !args.containsKey(key)) {
        if (filled == null) {
          filled = args.copy();
        }
        filled.put(key, def);
      }
    }
    return filled == null ? args : filled;
  }

  private static List<String> indexEntries() {
    List<String> names = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(open(ROOT + "index.txt"), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        line = line.strip();
        if (!line.isEmpty() && !line.startsWith("#")) {
          names.add(line.endsWith(".json") ? line : line + ".json");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return names;
  }

  private static String read(String resource) {
    try (InputStream in = open(resource)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static InputStream open(String resource) {
    InputStream in = ToolCatalog.class.getResourceAsStream(resource);
    if (in == null) {
      throw new IllegalStateException("missing catalogue resource " + resource);
    }
    return in;
  }
}
