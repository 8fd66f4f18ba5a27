package io.fleetbus.hub.settings;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code frontends} section of the hub's conf (WebSocket, MCP, bridges), with FLEETBUS_* overrides.
 *
 * @param allowedOrigins    browser origins allowed besides the hub's own (MCP, WebSocket, SockJS)
 * @param wsMaxQueuedBytes  per WebSocket: bytes waiting for a slow client before the hub closes the socket
 * @param wsMaxUnauthenticatedSockets WebSockets waiting for their auth message at once (more are answered 429)
 * @param tcpBridgePort     the TCP event-bus bridge's port, or -1 when it is off
 * @param sockJs            what SockJS sockets without a valid token yet may hold ({@code frontends.sockjs})
 * @param identity          who issues user tokens besides the hub, and the hub's public URL (MCP's OAuth discovery)
 */
public record FrontendSettings(List<String> allowedOrigins, int wsMaxQueuedBytes, int wsMaxCallsInFlight,
                               int wsMaxUnauthenticatedSockets, long mcpSessionIdleMs, String tcpBridgeHost, int tcpBridgePort, SockJsLimits sockJs,
                               IdentitySettings identity) {

  public static FrontendSettings fromConf(JsonObject conf, HubSettings hub) {
    JsonObject f = conf.getJsonObject("frontends", new JsonObject());
    List<String> origins = new ArrayList<>();
    f.getJsonArray("allowedOrigins", new JsonArray()).forEach(o -> origins.add(String.valueOf(o)));
    origins.add("http://127.0.0.1:" + hub.httpPort());
    origins.add("http://localhost:" + hub.httpPort());
    JsonObject ws = f.getJsonObject("ws", new JsonObject());
    JsonObject tcp = f.getJsonObject("tcpBridge", new JsonObject());
    String tcpPort = System.getenv("FLEETBUS_TCP_BRIDGE_PORT");
    String queued = System.getenv("FLEETBUS_WS_MAX_QUEUED_BYTES");
    return new FrontendSettings(List.copyOf(origins),
      queued != null && !queued.isBlank() ? Integer.parseInt(queued) : ws.getInteger("maxQueuedBytes", 1024 * 1024),
      ws.getInteger("maxCallsInFlight", 64), ws.getInteger("maxUnauthenticatedSockets",
        io.fleetbus.hub.ws.WsLimits.MAX_UNAUTHENTICATED_SOCKETS),
      f.getJsonObject("mcp", new JsonObject()).getLong("sessionIdleMinutes", 30L) * 60_000,
      tcp.getString("host", hub.host()),
      tcpPort != null && !tcpPort.isBlank() ? Integer.parseInt(tcpPort) : tcp.getInteger("port", -1),
      SockJsLimits.fromConf(f), IdentitySettings.fromConf(conf));
  }

  public boolean tcpBridgeEnabled() {
    return tcpBridgePort >= 0;
  }
}
