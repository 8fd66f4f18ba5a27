package io.fleetbus.node.tools.command;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The variables run_command's {@code env} may add (seed 003): only names on the node's {@code commands.env} list (a
 * trailing {@code *} matches a prefix) — a variable can make an allowlisted program load or run other code
 * (LD_PRELOAD, GIT_*, PAGER …), so an allowlist decides, as for programs. Values hold no control characters, and the
 * ones libc reads as names (locale, time zone) may not name a file instead.
 */
final class CommandEnv {
  private final List<String> allowed;

  CommandEnv(List<String> allowed) {
    this.allowed = List.copyOf(allowed);
  }

  /** The checked variables, in the order given; 403 for a name off the list, 400 for a value. */
  Map<String, String> check(JsonObject env) {
    Map<String, String> out = new LinkedHashMap<>();
    if (env == null) {
      return out;
    }
    for (String name : env.fieldNames()) {
      if (!allowedName(name)) {
        throw FailureCode.FORBIDDEN.exception("env: '" + name + "' is not a variable run_command may set on this node "
          + allowed + " (conf commands.env)");
      }
      String value = String.valueOf(env.getValue(name));
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        if (c < 0x20 || c == 0x7f) {
          throw FailureCode.BAD_REQUEST.exception("env: the value of '" + name + "' contains a control character");
        }
      }
      boolean readAsName = name.equals("TZ") || name.equals("LANG") || name.equals("LANGUAGE") || name.startsWith("LC_");
      if (readAsName && (value.startsWith("/") || value.startsWith(":") || value.startsWith(".") || value.contains(".."))) {
        throw FailureCode.BAD_REQUEST.exception("env: " + name + " must name a locale or time zone, not a file ('"
          + value + "')");
      }
      out.put(name, value);
    }
    return out;
  }

  private boolean allowedName(String name) {
    return allowed.stream().anyMatch(a -> a.endsWith("*") ? name.startsWith(a.substring(0, a.length() - 1))
      && name.length() > a.length() - 1 : a.equals(name));
  }
}
