package io.fleetbus.node.settings;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.files.AtomicFiles;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Settings the hub may change on a running node ({@code config_update}): heartbeat interval,
 * run_command allowlist additions/removals, log paths and labels (merged: set or removed one by one). Kept as an immutable snapshot
 * (read from any thread) and persisted in the node's data folder so a restart keeps it. The
 * capability tier is deliberately not among them: only the node's own config on the machine sets it.
 */
public final class RuntimeConfig {
  static final String FILE = "runtime-config.json";
  private static final Set<String> KEYS = Set.of("heartbeatIntervalMs", "allowlist", "logPaths", "labels");

  private final NodeSettings base;
  private final Path file;
  private volatile JsonObject current;

  private RuntimeConfig(NodeSettings base, Path file, JsonObject current) {
    this.base = base;
    this.file = file;
    this.current = current;
  }

  /** Reads what earlier updates left in the data folder (blocking). */
  public static RuntimeConfig load(NodeSettings base) throws IOException {
    Path file = base.dataDir().resolve(FILE);
    JsonObject saved = Files.exists(file) ? new JsonObject(Files.readString(file)) : new JsonObject();
    return new RuntimeConfig(base, file, saved);
  }

  /** Nothing changed at run time: the node's own config only (tests). */
  public static RuntimeConfig none(NodeSettings base) {
    return new RuntimeConfig(base, null, new JsonObject());
  }

  public long heartbeatIntervalMs(long hubDefault) {
    return current.getLong("heartbeatIntervalMs", hubDefault);
  }

  /** The node's labels: its conf's, with every label an update set (a string) or removed (null) since. */
  public JsonObject labels() {
    JsonObject labels = base.labels().copy();
    current.getJsonObject("labels", new JsonObject()).forEach(e -> {
      if (e.getValue() == null) {
        labels.remove(e.getKey());
      } else {
        labels.put(e.getKey(), e.getValue());
      }
    });
    return labels;
  }

  @SuppressWarnings("unchecked")
  public Set<String> allowlist() {
    JsonObject change = current.getJsonObject("allowlist", new JsonObject());
    Set<String> names = new LinkedHashSet<>(base.allowlist());
    names.addAll((List<String>) (List<?>) change.getJsonArray("add", new JsonArray()).getList());
    names.removeAll((List<String>) (List<?>) change.getJsonArray("remove", new JsonArray()).getList());
    return Set.copyOf(names);
  }

  @SuppressWarnings("unchecked")
  public List<String> logPaths(List<String> fromConf) {
    JsonArray paths = current.getJsonArray("logPaths");
    return paths == null ? fromConf : List.copyOf((List<String>) (List<?>) paths.getList());
  }

  public JsonObject snapshot() {
    return current.copy();
  }

  /**
   * Checks an update, merges it over the current state and saves it atomically (blocking). A bad
   * update is a 400 or 403 and changes nothing.
   */
  public synchronized JsonObject apply(JsonObject update) throws IOException {
    if (update.containsKey("capabilityTier")) {
      throw FailureCode.FORBIDDEN.exception("the capability tier of node " + base.nodeId()
        + " is set only in its own config on the machine, never by the hub");
    }
    for (String key : update.fieldNames()) {
      if (!KEYS.contains(key)) {
        throw FailureCode.BAD_REQUEST.exception("config_update cannot change '" + key + "'; it takes " + KEYS);
      }
    }
    JsonObject next = current.copy();
    if (update.containsKey("heartbeatIntervalMs")) {
      Object v = update.getValue("heartbeatIntervalMs");
      if (!(v instanceof Number n) || n.longValue() < 100 || n.longValue() > 300_000) {
        throw FailureCode.BAD_REQUEST.exception("heartbeatIntervalMs must be a number from 100 to 300000");
      }
      next.put("heartbeatIntervalMs", n.longValue());
    }
    if (update.containsKey("allowlist")) {
      next.put("allowlist", checkAllowlist(update.getValue("allowlist"), next.getJsonObject("allowlist", new JsonObject())));
    }
    if (update.containsKey("logPaths")) {
      next.put("logPaths", strings(update.getValue("logPaths"), "logPaths"));
    }
    if (update.containsKey("labels")) {
      // merged into the labels the node has: a string sets one, null removes one, the others stay
      if (!(update.getValue("labels") instanceof JsonObject labels)
        || labels.stream().anyMatch(e -> e.getValue() != null && !(e.getValue() instanceof String))) {
        throw FailureCode.BAD_REQUEST.exception("labels must be an object of string values (null removes a label)");
      }
      JsonObject changes = next.getJsonObject("labels", new JsonObject()).copy();
      labels.forEach(e -> changes.put(e.getKey(), e.getValue()));
      next.put("labels", changes);
    }
    if (file != null) {
      AtomicFiles.writeJson(file, next);
    }
    current = next;
    return next.copy();
  }

  private static JsonObject checkAllowlist(Object value, JsonObject previous) {
    if (!(value instanceof JsonObject change)) {
      throw FailureCode.BAD_REQUEST.exception("allowlist must be {\"add\": [...], \"remove\": [...]}");
    }
    Set<String> add = new LinkedHashSet<>(strings(previous.getValue("add", new JsonArray()), "allowlist.add").getList());
    Set<String> remove = new LinkedHashSet<>(strings(previous.getValue("remove", new JsonArray()), "allowlist.remove").getList());
    for (Object name : strings(change.getValue("add", new JsonArray()), "allowlist.add")) {
      String s = (String) name;
      if (!s.matches("[A-Za-z0-9][A-Za-z0-9._+-]*")) {
        throw FailureCode.BAD_REQUEST.exception("allowlist entry '" + s + "' must be a bare program name");
      }
      add.add(s);
      remove.remove(s);
    }
    for (Object name : strings(change.getValue("remove", new JsonArray()), "allowlist.remove")) {
      remove.add((String) name);
      add.remove(name);
    }
    return new JsonObject().put("add", new JsonArray(List.copyOf(add))).put("remove", new JsonArray(List.copyOf(remove)));
  }

  private static JsonArray strings(Object value, String field) {
    if (!(value instanceof JsonArray a) || a.stream().anyMatch(v -> !(v instanceof String))) {
      throw FailureCode.BAD_REQUEST.exception(field + " must be an array of strings");
    }
    return a;
  }
}
