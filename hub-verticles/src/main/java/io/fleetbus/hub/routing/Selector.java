package io.fleetbus.hub.routing;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * Which nodes a call targets when it names none: labels that must all match, an optional platform and
 * least capability tier, and whether one node (the least loaded) or all of them run it.
 *
 * @param nodes the resolved target list, fixed when a tier-3 fan-out is approved (null until then)
 */
public record Selector(JsonObject labels, String platform, String minCapabilityTier, String mode, int maxConcurrency,
                       int maxErrors, List<String> nodes) {

  public static final String ONE = "one";
  public static final String ALL = "all";
  private static final Map<String, Integer> TIER_ORDER = Map.of("unprivileged", 0, "sudo", 1, "root", 2);

  /** Reads and checks a selector; bad values are a 400 naming the field. */
  @SuppressWarnings("unchecked")
  public static Selector fromJson(JsonObject j) {
    JsonObject labels = j.getJsonObject("labels", new JsonObject());
    for (String key : labels.fieldNames()) {
      if (!(labels.getValue(key) instanceof String)) {
        throw FailureCode.BAD_REQUEST.exception("label '" + key + "' must be a string value");
      }
    }
    String mode = j.getString("mode", ONE);
    if (!ONE.equals(mode) && !ALL.equals(mode)) {
      throw FailureCode.BAD_REQUEST.exception("mode must be 'one' or 'all', not '" + mode + "'");
    }
    String minTier = j.getString("minCapabilityTier");
    if (minTier != null && !TIER_ORDER.containsKey(minTier)) {
      throw FailureCode.BAD_REQUEST.exception("minCapabilityTier must be one of " + TIER_ORDER.keySet());
    }
    int concurrency = j.getInteger("maxConcurrency", 16);
    int maxErrors = j.getInteger("maxErrors", Integer.MAX_VALUE);
    if (concurrency < 1 || concurrency > 1000) {
      throw FailureCode.BAD_REQUEST.exception("maxConcurrency must be between 1 and 1000");
    }
    if (maxErrors < 1) {
      throw FailureCode.BAD_REQUEST.exception("maxErrors must be at least 1");
    }
    JsonArray nodes = j.getJsonArray("nodes");
    return new Selector(labels, j.getString("platform"), minTier, mode, concurrency, maxErrors,
      nodes == null ? null : List.copyOf((List<String>) (List<?>) nodes.getList()));
  }

  public JsonObject toJson() {
    JsonObject j = new JsonObject().put("labels", labels).put("mode", mode).put("maxConcurrency", maxConcurrency);
    if (platform != null) {
      j.put("platform", platform);
    }
    if (minCapabilityTier != null) {
      j.put("minCapabilityTier", minCapabilityTier);
    }
    if (maxErrors != Integer.MAX_VALUE) {
      j.put("maxErrors", maxErrors);
    }
    if (nodes != null) {
      j.put("nodes", new JsonArray(nodes));
    }
    return j;
  }

  public Selector withNodes(List<String> resolved) {
    return new Selector(labels, platform, minCapabilityTier, mode, maxConcurrency, maxErrors, List.copyOf(resolved));
  }

  public boolean fanOut() {
    return ALL.equals(mode);
  }

  /** Why this selector excludes a node with these facts, or null when it matches. */
  String mismatch(String nodeId, JsonObject nodeLabels, String nodePlatform, String capabilityTier) {
    if (nodes != null && !nodes.contains(nodeId)) {
      return "not among the approved target nodes";
    }
    for (String key : labels.fieldNames()) {
      Object have = nodeLabels == null ? null : nodeLabels.getValue(key);
      if (!labels.getValue(key).equals(have)) {
        return "label " + key + "=" + (have == null ? "(unset)" : have) + ", wanted " + labels.getValue(key);
      }
    }
    if (platform != null && !platform.equals(nodePlatform)) {
      return "platform " + nodePlatform + ", wanted " + platform;
    }
    if (minCapabilityTier != null
      && TIER_ORDER.getOrDefault(capabilityTier, -1) < TIER_ORDER.get(minCapabilityTier)) {
      return "capability tier " + capabilityTier + ", wanted at least " + minCapabilityTier;
    }
    return null;
  }
}
