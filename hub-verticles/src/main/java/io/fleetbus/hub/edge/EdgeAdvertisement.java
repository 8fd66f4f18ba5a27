package io.fleetbus.hub.edge;

import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.cluster.SharedMap;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * Where an edge node reaches this hub's edge endpoint (issue 35): what the enrollment answer names. The conf's
 * {@code edge.advertise} (or FLEETBUS_EDGE_ADVERTISE: a host, or host:port) when set; else the address the endpoint
 * listens on when it is one machine address; for a wildcard ({@code 0.0.0.0}, {@code ::}) the machine's first
 * non-loopback address (site-local IPv4 first): never {@code 0.0.0.0}, and loopback only when the endpoint listens on
 * loopback (then it is all there is, and the hub warns). Each hub writes its own into the fleet's map
 * {@value #MAP}, so an enrollment through any hub names every live hub's endpoint.
 */
public final class EdgeAdvertisement {
  static final String MAP = "fleetbus.edge.endpoints";

  private EdgeAdvertisement() {
  }

  /** The host:port edge nodes are told for an endpoint listening on {@code host}:{@code port}. */
  public static String of(String advertise, String host, int port) {
    if (advertise != null && !advertise.isBlank()) {
      String a = advertise.strip();
      return a.matches(".*:\\d+") && !a.startsWith("[") && a.indexOf(':') == a.lastIndexOf(':') || a.matches("\\[.*]:\\d+")
        ? a : hostPort(a, port);
    }
    InetAddress bound = parse(host);
    if (bound == null || !bound.isAnyLocalAddress()) {
      return hostPort(host, port); // a name, one machine address, or loopback (then that is all there is)
    }
    List<InetAddress> mine = machineAddresses();
    return hostPort(mine.isEmpty() ? "127.0.0.1" : mine.get(0).getHostAddress(), port);
  }

  /** Whether an advertised host:port is one that edge nodes on other machines can reach (not loopback). */
  public static boolean reachableFromOtherMachines(String advertised) {
    InetAddress a = parse(advertised.substring(0, advertised.lastIndexOf(':')).replace("[", "").replace("]", ""));
    return a == null || !a.isLoopbackAddress() && !a.isAnyLocalAddress();
  }

  /** The machine's up, non-loopback, non-link-local addresses: site-local IPv4 first, then other IPv4, then IPv6. */
  static List<InetAddress> machineAddresses() {
    List<InetAddress> all = new ArrayList<>();
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (nic.isUp() && !nic.isLoopback()) {
          Collections.list(nic.getInetAddresses()).stream()
            .filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress() && !a.isAnyLocalAddress()).forEach(all::add);
        }
      }
    } catch (SocketException e) {
      return List.of();
    }
    all.sort(Comparator.comparingInt(EdgeAdvertisement::rank));
    return all;
  }

  private static int rank(InetAddress a) {
    boolean v4 = a.getAddress().length == 4;
    return v4 && a.isSiteLocalAddress() ? 0 : v4 ? 1 : 2;
  }

  private static InetAddress parse(String host) {
    if (host == null || !host.matches("[0-9.]+|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*")) {
      return null; // a name: it stands for itself
    }
    try {
      return InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      return null;
    }
  }

  private static String hostPort(String host, int port) {
    return (host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
  }

  /** This hub's endpoint in the fleet's map (its member id the key; a restarted hub's old entry names a gone member). */
  static Future<Void> publish(Context ctx, FleetState fleet, String memberId, String endpoint) {
    return fleet == null ? Future.succeededFuture() : map(fleet).set(ctx, memberId, new JsonObject()
      .put("endpoint", endpoint).put("at", System.currentTimeMillis()));
  }

  /** Every live hub's advertised endpoint, {@code own} first (alone when the hub shares nothing). */
  static Future<JsonArray> all(Context ctx, FleetState fleet, String own) {
    if (fleet == null) {
      return Future.succeededFuture(new JsonArray().add(own));
    }
    return map(fleet).entries(ctx).map(entries -> {
      JsonArray endpoints = new JsonArray().add(own);
      entries.stream().filter(e -> fleet.isMember(e.key())).map(e -> e.value().getString("endpoint"))
        .filter(e -> e != null && !endpoints.contains(e)).sorted().forEach(endpoints::add);
      return endpoints;
    });
  }

  private static SharedMap map(FleetState fleet) {
    return fleet.map(MAP, 30 * FleetState.DAY_MS);
  }
}
