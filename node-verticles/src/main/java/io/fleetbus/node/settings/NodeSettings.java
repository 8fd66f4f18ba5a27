package io.fleetbus.node.settings;

import io.fleetbus.node.settings.ToolSettings;
import io.fleetbus.node.trust.InstanceKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The node's configuration (conf/node.json, with FLEETBUS_NODE_* environment overrides).
 *
 * @param capabilityTier root, sudo or unprivileged: what this machine lets the fleet do
 * @param allowlist      first words run_command accepts
 * @param tools          sandbox and tool settings (path scopes, log globs, power commands, caps)
 * @param duplicateIdRefusals hellos refused because another running agent holds this node id, after which this agent
 *                       exits ({@link #EXIT_DUPLICATE_ID}); 0: retry for ever (conf {@code duplicateIdRefusals}, default 5:
 *                       about 30 s, longer than a hung agent with the same id takes to be declared gone)
 */
public record NodeSettings(String nodeId, String instanceId, String capabilityTier, JsonObject labels,
                           Path dataDir, long heartbeatIntervalMs, List<String> allowlist,
                           int outputCapBytes, long maxHelloBackoffMs, ToolSettings tools, int duplicateIdRefusals) {

  /** The agent's exit code when another running agent holds its node id. */
  public static final int EXIT_DUPLICATE_ID = 3;
  /** Folders (':'-separated) no tool and no started process of this node reaches, added to {@code paths.private}. */
  public static final String PRIVATE_PATHS_ENV = "FLEETBUS_PRIVATE_PATHS";

  public NodeSettings(String nodeId, String instanceId, String capabilityTier, JsonObject labels, Path dataDir,
                      long heartbeatIntervalMs, List<String> allowlist, int outputCapBytes, long maxHelloBackoffMs,
                      ToolSettings tools) {
    this(nodeId, instanceId, capabilityTier, labels, dataDir, heartbeatIntervalMs, allowlist, outputCapBytes,
      maxHelloBackoffMs, tools, 5);
  }

  public static final Set<String> CAPABILITY_TIERS = Set.of("root", "sudo", "unprivileged");
  /** run_command's programs where the conf names none: views of the machine that change nothing (and sleep). */
  public static final List<String> DEFAULT_ALLOWLIST = List.of("echo", "hostname", "uname", "uptime", "df", "whoami",
    "date", "id", "sleep", "free", "ps", "du", "nproc");

  /** Settings with the tools' defaults for this data folder. */
  public NodeSettings(String nodeId, String instanceId, String capabilityTier, JsonObject labels, Path dataDir,
                      long heartbeatIntervalMs, List<String> allowlist, int outputCapBytes, long maxHelloBackoffMs) {
    this(nodeId, instanceId, capabilityTier, labels, dataDir, heartbeatIntervalMs, allowlist, outputCapBytes,
      maxHelloBackoffMs, ToolSettings.defaults(dataDir));
  }

  public boolean unprivileged() {
    return "unprivileged".equals(capabilityTier);
  }

  public static NodeSettings fromConf(JsonObject conf) {
    String nodeId = env("FLEETBUS_NODE_ID", conf.getString("nodeId"));
    if (nodeId == null || nodeId.isBlank()) {
      nodeId = defaultNodeId();
    }
    if (!nodeId.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")) {
      throw new IllegalArgumentException("nodeId '" + nodeId
        + "' must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
    String tier = env("FLEETBUS_NODE_TIER", conf.getString("capabilityTier", "sudo"));
    if (!CAPABILITY_TIERS.contains(tier)) {
      throw new IllegalArgumentException("capabilityTier '" + tier + "' must be one of " + CAPABILITY_TIERS);
    }
    String interval = env("FLEETBUS_HEARTBEAT_MS", null);
    long heartbeatMs = interval != null ? Long.parseLong(interval) : conf.getLong("heartbeatIntervalMs", 5000L);
    @SuppressWarnings("unchecked")
    List<String> allow = (List<String>) (List<?>) conf.getJsonArray("allowlist",
      new JsonArray(DEFAULT_ALLOWLIST)).getList();
    Path dataDir = Path.of(env("FLEETBUS_NODE_DATA", conf.getString("dataDir", "data/node")));
    conf = withPrivateFromEnv(conf, env(PRIVATE_PATHS_ENV, null));
    return new NodeSettings(nodeId, InstanceKeys.newInstanceId(), tier,
      conf.getJsonObject("labels", new JsonObject()), dataDir,
      heartbeatMs, List.copyOf(allow), conf.getInteger("outputCapBytes", 50 * 1024),
      conf.getLong("maxHelloBackoffMs", 60_000L), ToolSettings.fromConf(conf, dataDir), duplicateIdRefusals(conf));
  }

  /** {@value #PRIVATE_PATHS_ENV} (folders separated by ':') adds to {@code paths.private}: scripts/run.sh names the hub's data folder. */
  public static JsonObject withPrivateFromEnv(JsonObject conf, String fromEnv) {
    if (fromEnv == null) {
      return conf;
    }
    JsonObject c = conf.copy();
    JsonObject paths = c.getJsonObject("paths", new JsonObject());
    JsonArray priv = paths.getJsonArray("private", new JsonArray()).copy();
    for (String p : fromEnv.split(":")) {
      if (!p.isBlank()) {
        priv.add(p);
      }
    }
    c.put("paths", paths.put("private", priv));
    return c;
  }

  private static int duplicateIdRefusals(JsonObject conf) {
    Object v = conf.getValue("duplicateIdRefusals", 5);
    if (!(v instanceof Integer n) || n < 0 || n > 1000) {
      throw new IllegalArgumentException("duplicateIdRefusals must be a whole number from 0 (never give up) to 1000");
    }
    return n;
  }

  /** The operating-system family the catalogue's {@code platforms} lists use. */
  public static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    if (os.contains("win")) {
      return "windows";
    }
    if (os.contains("mac")) {
      return "macos";
    }
    return "linux";
  }

  private static String defaultNodeId() {
    String host = System.getenv("HOSTNAME");
    if (host == null || host.isBlank()) {
      try {
        host = java.net.InetAddress.getLocalHost().getHostName();
      } catch (java.net.UnknownHostException e) {
        host = "node";
      }
    }
    return host.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_.-]", "-");
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v;
  }
}
