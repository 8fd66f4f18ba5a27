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

  /** The fields a selector may have (a request naming another is refused: a typo must not widen the target). */
  public static final List<String> FIELDS = List.of("labels", "platform", "minCapabilityTier", "mode", "maxConcurrency",
    "maxErrors", "nodes");

  /** Reads and checks a selector; a wrong type or value is a 400 naming the field (never a guess at what was meant). */
  public static Selector fromJson(JsonObject j) {
    Object rawLabels = j.getValue("labels");
    if (rawLabels != null && !(rawLabels instanceof JsonObject)) {
      throw typeError("labels", "an object of label names to string values", rawLabels);
    }
    JsonObject labels = rawLabels == null ? new JsonObject() : (JsonObject) rawLabels;
    for (String key : labels.fieldNames()) {
      if (!(labels.getValue(key) instanceof String)) {
        throw FailureCode.BAD_REQUEST.exception("label '" + key + "' must be a string value");
      }
    }
    String mode = text(j, "mode", ONE);
    if (!ONE.equals(mode) && !ALL.equals(mode)) {
      throw FailureCode.BAD_REQUEST.exception("mode must be 'one' or 'all', not '" + mode + "'");
    }
    String minTier = text(j, "minCapabilityTier", null);
    if (minTier != null && !TIER_ORDER.containsKey(minTier)) {
      throw FailureCode.BAD_REQUEST.exception("minCapabilityTier must be one of " + TIER_ORDER.keySet());
    }
    int concurrency = whole(j, "maxConcurrency", 16);
    int maxErrors = whole(j, "maxErrors", Integer.MAX_VALUE);
    if (concurrency < 1 || concurrency > 1000) {
      throw FailureCode.BAD_REQUEST.exception("maxConcurrency must be between 1 and 1000");
    }
    if (maxErrors < 1) {
      throw FailureCode.BAD_REQUEST.exception("maxErrors must be at least 1");
    }
    Object rawNodes = j.getValue("nodes");
    if (rawNodes != null && !(rawNodes instanceof JsonArray a && a.stream().allMatch(String.class::isInstance))) {
      throw typeError("nodes", "an array of node ids", rawNodes);
    }
    String platform = text(j, "platform", null);
    return new Selector(labels, platform, minTier, mode, concurrency, maxErrors,
      rawNodes == null ? null : ((JsonArray) rawNodes).stream().map(String.class::cast).toList());
  }

  private static String text(JsonObject j, String field, String otherwise) {
    Object v = j.getValue(field);
    if (v == null) {
      return otherwise;
    }
    if (!(v instanceof String s)) {
      throw typeError(field, "a string", v);
    }
    return s;
  }

  private static int whole(JsonObject j, String field, int otherwise) {
    Object v = j.getValue(field);
    if (v == null) {
      return otherwise;
    }
    if (!(v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte)
      || ((Number) v).longValue() != ((Number) v).intValue()) {
      throw typeError(field, "a whole number", v);
    }
    return ((Number) v).intValue();
  }

  private static RuntimeException typeError(String field, String wanted, Object got) {
    String kind = got instanceof JsonArray ? "an array" : got instanceof JsonObject ? "an object"
      : got instanceof String ? "a string" : got instanceof Boolean ? "true/false" : got instanceof Number ? "a number" : "a value";
    return FailureCode.BAD_REQUEST.exception("'" + field + "' must be " + wanted + ", not " + kind);
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
