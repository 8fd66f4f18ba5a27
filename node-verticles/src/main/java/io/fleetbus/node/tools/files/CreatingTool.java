package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.function.Predicate;

/**
 * A tool that makes a file or a folder at its {@code path} argument (write_file, create_dir). Their shared rules
 * live here once: the path must be allowed for creating (also in the hub's dry check), and an entry already there
 * (not followed if it is a link) must be of the kind the tool makes, else CONFLICT before anything is touched.
 */
abstract class CreatingTool implements ToolHandler {
  protected final PathScope scope;
  private final Predicate<Path> ofMyKind;
  private final String otherKind;

  /** {@code ofMyKind} tests an existing entry (links not followed); {@code otherKind} ends the CONFLICT message. */
  CreatingTool(PathScope scope, Predicate<Path> ofMyKind, String otherKind) {
    this.scope = scope;
    this.ofMyKind = ofMyKind;
    this.otherKind = otherKind;
  }

  /** The path scope (as written and after following links); whether the entry exists yet does not matter. */
  @Override
  public final void check(JsonObject args) {
    scope.forCreate("path", args.getString("path"));
  }

  /** Where to create, and whether an entry of this tool's kind is there already; CONFLICT for any other entry. */
  final Target target(JsonObject args) {
    String shown = args.getString("path");
    Path path = scope.forCreate("path", shown);
    boolean exists = Files.exists(path, LinkOption.NOFOLLOW_LINKS);
    if (exists && !ofMyKind.test(path)) {
      throw FailureCode.CONFLICT.exception("path '" + shown + "' exists and " + otherKind);
    }
    return new Target(shown, path, exists);
  }

  /** The path as the caller wrote it (for messages), as resolved in scope, and whether it exists. */
  record Target(String shown, Path path, boolean exists) {
    /** What both tools answer first: the resolved path and whether this call created it. */
    JsonObject answer() {
      return new JsonObject().put("path", path.toString()).put("created", !exists);
    }
  }
}
