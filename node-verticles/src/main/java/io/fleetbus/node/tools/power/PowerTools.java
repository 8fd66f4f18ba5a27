package io.fleetbus.node.tools.power;

import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** reboot_machine, shutdown_machine, cancel_reboot and check_pending_reboot. */
public final class PowerTools {
  /** Debian/Ubuntu's marker files; other systems answer "not pending" unless they write the same ones. */
  public static final Path REBOOT_REQUIRED = Path.of("/var/run/reboot-required");

  private PowerTools() {
  }

  public static Map<String, ToolHandler> handlers(PowerSchedule schedule, Path rebootRequired) {
    return Map.of(
      "reboot_machine", (args, ctx) -> schedule.schedule("reboot", ctx.principal(), args.getString("reason")),
      "shutdown_machine", (args, ctx) -> schedule.schedule("shutdown", ctx.principal(), args.getString("reason")),
      "cancel_reboot", (args, ctx) -> schedule.cancel(ctx.principal()),
      "check_pending_reboot", (args, ctx) -> pendingReboot(rebootRequired));
  }

  static JsonObject pendingReboot(Path marker) throws java.io.IOException {
    if (!Files.isDirectory(marker.getParent())) {
      throw FailureCode.NO_ELIGIBLE_NODE.exception("not available on this node: " + marker.getParent() + " does not exist");
    }
    JsonObject out = new JsonObject().put("pending", Files.exists(marker)).put("marker", marker.toString());
    JsonArray reasons = new JsonArray();
    JsonArray packages = new JsonArray();
    if (Files.isRegularFile(marker)) {
      String text = Files.readString(marker, StandardCharsets.UTF_8).strip();
      reasons.add(text.isEmpty() ? "the system asks for a reboot" : text);
      Path pkgs = marker.resolveSibling(marker.getFileName() + ".pkgs");
      if (Files.isRegularFile(pkgs)) {
        Files.readAllLines(pkgs, StandardCharsets.UTF_8).stream().map(String::strip).filter(s -> !s.isEmpty())
          .distinct().forEach(packages::add);
        if (!packages.isEmpty()) {
          reasons.add("updated packages: " + String.join(", ", packages.getList().stream().map(String::valueOf).toList()));
        }
      }
    }
    return out.put("reasons", reasons).put("packages", packages);
  }
}
