package io.fleetbus.hub.settings;

import io.vertx.core.json.JsonObject;
import java.nio.file.Path;

/**
 * The hub's configuration (conf/hub.json, with FLEETBUS_* environment overrides).
 *
 * @param missedHeartbeats    how many heartbeat intervals may pass in silence before a node is offline
 * @param callTimeoutMs       reply timeout of a call to a node unless the tool asks for more
 * @param approvalTtlMs       how long a tier-3 approval waits for a person
 * @param lastHeartbeatSaveMs how often the nodes' last heartbeat times are written to the hub's file (batched; also
 *                            on every offline transition): what a restarted hub shows as "last seen"
 */
public record HubSettings(String host, int httpPort, Path dataDir, long heartbeatIntervalMs, int missedHeartbeats,
                          long callTimeoutMs, long approvalTtlMs, long noHandlersRetryMs, JsonObject tierOverrides,
                          long devTokenTtlMinutes, long lastHeartbeatSaveMs) {

  public static HubSettings fromConf(JsonObject conf) {
    JsonObject http = conf.getJsonObject("http", new JsonObject());
    String port = System.getenv("FLEETBUS_HTTP_PORT");
    String data = System.getenv("FLEETBUS_HUB_DATA");
    String hb = System.getenv("FLEETBUS_HEARTBEAT_MS");
    return new HubSettings(
      http.getString("host", "127.0.0.1"),
      port != null && !port.isBlank() ? Integer.parseInt(port) : http.getInteger("port", 8080),
      Path.of(data != null && !data.isBlank() ? data : conf.getString("dataDir", "data/hub")),
      hb != null && !hb.isBlank() ? Long.parseLong(hb) : conf.getLong("heartbeatIntervalMs", 5000L),
      conf.getInteger("missedHeartbeats", 3),
      conf.getLong("callTimeoutMs", 30_000L),
      conf.getLong("approvalTtlMs", 5 * 60_000L),
      conf.getLong("noHandlersRetryMs", 5000L),
      conf.getJsonObject("tierOverrides", new JsonObject()),
      conf.getLong("devTokenTtlMinutes", 12 * 60L),
      conf.getLong("lastHeartbeatSaveMs", 10_000L));
  }
}
