package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;

/** create_dir: the folder and its missing parents; an existing folder is fine. */
final class CreateDirTool extends CreatingTool {
  CreateDirTool(PathScope scope) {
    super(scope, p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS), "is not a folder");
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    Target dir = target(args);
    if (!dir.exists()) {
      scope.createParents(dir.path());
      Files.createDirectory(dir.path());
    }
    return dir.answer();
  }
}
