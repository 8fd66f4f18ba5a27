package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** create_dir: the folder and its missing parents; an existing folder is fine. */
final class CreateDirTool implements ToolHandler {
  private final PathScope scope;

  CreateDirTool(PathScope scope) {
    this.scope = scope;
  }

  @Override
  public void check(JsonObject args) {
    scope.forCreate("path", args.getString("path"));
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    String shown = args.getString("path");
    Path dir = scope.forCreate("path", shown);
    if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        throw FailureCode.CONFLICT.exception("path '" + shown + "' exists and is not a folder");
      }
      return new JsonObject().put("path", dir.toString()).put("created", false);
    }
    scope.createParents(dir);
    Files.createDirectory(dir);
    return new JsonObject().put("path", dir.toString()).put("created", true);
  }
}
