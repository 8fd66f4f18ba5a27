package io.fleetbus.node.tools.services;

import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * get_service_status and manage_service over systemd. Services the machine cannot do without (ssh,
 * dbus, journald …) and the node's protected names cannot be stopped, restarted or disabled.
 */
public final class ServiceTools {
  static final Set<String> BUILT_IN_PROTECTED = Set.of("ssh", "sshd", "dbus", "dbus-broker", "systemd-journald",
    "systemd-logind", "systemd-udevd", "systemd-networkd", "systemd-resolved", "init");
  private static final Set<String> STOPPING = Set.of("stop", "restart", "disable");

  private ServiceTools() {
  }

  public static Map<String, ToolHandler> handlers(Systemd systemd, List<String> protectedNames) {
    Set<String> guarded = Stream.concat(BUILT_IN_PROTECTED.stream(), protectedNames.stream())
      .map(ServiceTools::baseName).collect(Collectors.toUnmodifiableSet());
    ToolHandler status = (args, ctx) -> systemd.show("get_service_status", args.getString("service_name"));
    ToolHandler manage = (args, ctx) -> {
      String unit = args.getString("service_name");
      String action = args.getString("action");
      if ("get_details".equals(action)) {
        return systemd.show("manage_service", unit);
      }
      if (STOPPING.contains(action) && guarded.contains(baseName(unit))) {
        throw FailureCode.FORBIDDEN.exception("service '" + unit + "' is protected on this node: fleetbus will not "
          + action + " it");
      }
      systemd.act("manage_service", action, unit);
      JsonObject after = systemd.show("manage_service", unit);
      return new JsonObject().put("service", unit).put("action", action).put("done", true).put("now", after);
    };
    return Map.of("get_service_status", status, "manage_service", manage);
  }

  static String baseName(String unit) {
    String u = unit.toLowerCase(Locale.ROOT);
    return u.endsWith(".service") ? u.substring(0, u.length() - ".service".length()) : u;
  }
}
