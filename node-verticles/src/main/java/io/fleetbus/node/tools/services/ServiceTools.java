package io.fleetbus.node.tools.services;

import io.fleetbus.node.tools.Unsupported;
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
      if ("set_startup".equals(action)) {
        return setStartup(systemd, unit, args.getString("startup_type"), guarded.contains(baseName(unit)));
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

  /**
   * The seed's set_startup in systemd's words: auto (and auto_delayed, which systemd has no counterpart for) starts at
   * boot — unmask, enable; manual starts only when asked or pulled in — unmask, disable; disabled never starts — disable,
   * mask. A protected service keeps starting at boot.
   */
  private static JsonObject setStartup(Systemd systemd, String unit, String type, boolean guarded) throws Exception {
    if (type == null) {
      throw FailureCode.BAD_REQUEST.exception("field 'startup_type' is required for action set_startup: auto,"
        + " auto_delayed, manual or disabled");
    }
    if (guarded && !type.startsWith("auto")) {
      throw FailureCode.FORBIDDEN.exception("service '" + unit + "' is protected on this node: fleetbus will not stop it"
        + " from starting at boot (startup_type " + type + ")");
    }
    List<String> verbs = switch (type) {
      case "auto", "auto_delayed" -> List.of("unmask", "enable");
      case "manual" -> List.of("unmask", "disable");
      case "disabled" -> List.of("disable", "mask");
      default -> throw FailureCode.BAD_REQUEST.exception("field 'startup_type': '" + type + "' is not one of auto,"
        + " auto_delayed, manual, disabled");
    };
    for (String verb : verbs) {
      systemd.act("manage_service", verb, unit);
    }
    JsonObject result = new JsonObject().put("service", unit).put("action", "set_startup").put("startup_type", type)
      .put("systemctl", String.join(" + ", verbs)).put("done", true).put("now", systemd.show("manage_service", unit));
    return "auto_delayed".equals(type) ? Unsupported.note(result, "startup_type", "systemd has no delayed automatic"
      + " start: the service was enabled to start at boot, like auto") : result;
  }

  static String baseName(String unit) {
    String u = unit.toLowerCase(Locale.ROOT);
    return u.endsWith(".service") ? u.substring(0, u.length() - ".service".length()) : u;
  }
}
