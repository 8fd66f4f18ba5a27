package io.fleetbus.shared.catalog;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * One tool of the catalogue, as written in its JSON file under {@code fleetbus/tools/}.
 *
 * @param runsOn    {@code node} (routed to a node) or {@code hub} (answered by the hub)
 * @param platforms {@code all}, or operating system families such as {@code linux}, {@code windows}
 */
public record ToolSpec(String name, int tier, String description, List<String> aliases, List<String> platforms,
                       String runsOn, JsonObject annotations, JsonObject inputSchema) {

  public boolean runsOnHub() {
    return "hub".equals(runsOn);
  }

  public boolean supports(String platform) {
    return platforms.contains("all") || platforms.contains(platform);
  }

  /** The same tool with another tier (the hub's config may move a tool). */
  public ToolSpec withTier(int newTier) {
    return new ToolSpec(name, newTier, description, aliases, platforms, runsOn, annotations, inputSchema);
  }

  public JsonObject toJson() {
    return new JsonObject()
      .put("name", name)
      .put("tier", tier)
      .put("description", description)
      .put("aliases", new JsonArray(aliases))
      .put("platforms", new JsonArray(platforms))
      .put("runsOn", runsOn)
      .put("annotations", annotations)
      .put("inputSchema", inputSchema);
  }

  @SuppressWarnings("unchecked")
  static ToolSpec fromJson(JsonObject j) {
    return new ToolSpec(j.getString("name"), j.getInteger("tier"), j.getString("description"),
      List.copyOf((List<String>) (List<?>) j.getJsonArray("aliases", new JsonArray()).getList()),
      List.copyOf((List<String>) (List<?>) j.getJsonArray("platforms", new JsonArray().add("all")).getList()),
      j.getString("runsOn", "node"), j.getJsonObject("annotations", new JsonObject()),
      j.getJsonObject("inputSchema"));
  }
}
