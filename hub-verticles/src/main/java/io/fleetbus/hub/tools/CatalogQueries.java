package io.fleetbus.hub.tools;

import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.catalog.Tiers;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** list_tools, search_tools, get_tool_schema and validate_args: the catalogue seen through a caller's roles. */
final class CatalogQueries {
  private final ToolCatalog catalog;

  CatalogQueries(ToolCatalog catalog) {
    this.catalog = catalog;
  }

  JsonObject list(List<String> roles) {
    return search(roles, null);
  }

  JsonObject search(List<String> roles, String query) {
    int maxTier = Tiers.maxToolTier(roles);
    String q = query == null ? "" : query.strip().toLowerCase(Locale.ROOT);
    JsonArray tools = new JsonArray();
    catalog.all().stream()
      .filter(t -> t.tier() <= maxTier)
      .filter(t -> q.isEmpty() || rank(t, q) < 3)
      .sorted(Comparator.comparingInt((ToolSpec t) -> q.isEmpty() ? 0 : rank(t, q)).thenComparing(ToolSpec::name))
      .forEach(t -> tools.add(summary(t)));
    JsonObject out = new JsonObject().put("tools", tools).put("total", tools.size());
    return query == null ? out : out.put("query", query);
  }

  /** 0: the name matches, 1: an alias, 2: the description, 3: nothing. */
  private static int rank(ToolSpec t, String q) {
    if (t.name().toLowerCase(Locale.ROOT).contains(q)) {
      return 0;
    }
    if (t.aliases().stream().anyMatch(a -> a.toLowerCase(Locale.ROOT).contains(q))) {
      return 1;
    }
    return t.description() != null && t.description().toLowerCase(Locale.ROOT).contains(q) ? 2 : 3;
  }

  private static JsonObject summary(ToolSpec t) {
    return new JsonObject().put("name", t.name()).put("tier", t.tier()).put("runsOn", t.runsOn())
      .put("platforms", new JsonArray(t.platforms())).put("aliases", new JsonArray(t.aliases()))
      .put("description", t.description());
  }

  JsonObject schema(List<String> roles, String tool) {
    ToolSpec spec = catalog.require(tool);
    return spec.toJson().put("callable", spec.tier() <= Tiers.maxToolTier(roles));
  }

  JsonObject validate(String tool, JsonObject args) {
    ToolSpec spec = catalog.require(tool);
    try {
      return new JsonObject().put("tool", spec.name()).put("valid", true).putNull("errors")
        .put("args", catalog.validate(spec, args));
    } catch (FleetException e) {
      return new JsonObject().put("tool", spec.name()).put("valid", false).put("errors", new JsonArray().add(e.getMessage()));
    }
  }
}
