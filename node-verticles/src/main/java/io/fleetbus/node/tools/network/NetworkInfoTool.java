package io.fleetbus.node.tools.network;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Arrays;
import oshi.SystemInfo;
import oshi.hardware.NetworkIF;
import oshi.software.os.NetworkParams;

/** get_network_info: interfaces with addresses, prefix lengths, MAC, link state and counters (OSHI). */
public final class NetworkInfoTool implements ToolHandler {
  private final SystemInfo system;

  public NetworkInfoTool(SystemInfo system) {
    this.system = system;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) {
    JsonArray list = new JsonArray();
    for (NetworkIF nif : system.getHardware().getNetworkIFs(true)) {
      JsonArray v4 = new JsonArray();
      String[] addrs = nif.getIPv4addr();
      Short[] masks = nif.getSubnetMasks();
      for (int i = 0; i < addrs.length; i++) {
        v4.add(new JsonObject().put("address", addrs[i]).put("prefixLength", i < masks.length ? masks[i] : null));
      }
      JsonArray v6 = new JsonArray();
      String[] addrs6 = nif.getIPv6addr();
      Short[] prefixes = nif.getPrefixLengths();
      for (int i = 0; i < addrs6.length; i++) {
        v6.add(new JsonObject().put("address", addrs6[i]).put("prefixLength", i < prefixes.length ? prefixes[i] : null));
      }
      list.add(new JsonObject()
        .put("name", nif.getName())
        .put("displayName", nif.getDisplayName())
        .put("mac", nif.getMacaddr())
        .put("ipv4", v4)
        .put("ipv6", v6)
        .put("status", nif.getIfOperStatus().name().toLowerCase(java.util.Locale.ROOT))
        .put("speedBitsPerSecond", nif.getSpeed())
        .put("mtu", nif.getMTU())
        .put("bytesReceived", nif.getBytesRecv())
        .put("bytesSent", nif.getBytesSent()));
    }
    NetworkParams params = system.getOperatingSystem().getNetworkParams();
    return new JsonObject().put("interfaces", list).put("count", list.size())
      .put("hostname", params.getHostName())
      .put("defaultGateway", params.getIpv4DefaultGateway())
      .put("dnsServers", new JsonArray(Arrays.asList(params.getDnsServers())));
  }
}
