package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.files.AtomicFiles;
import io.fleetbus.shared.text.UnifiedDiff;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** write_file: whole content, atomically, parents created; dry_run answers the diff only. */
final class WriteFileTool implements ToolHandler {
  private final PathScope scope;

  WriteFileTool(PathScope scope) {
    this.scope = scope;
  }

  /** The path scope (as written and after following links); whether the file exists yet does not matter. */
  @Override
  public void check(JsonObject args) {
    scope.forCreate("path", args.getString("path"));
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    String shown = args.getString("path");
    Path target = scope.forCreate("path", shown);
    boolean exists = Files.exists(target, LinkOption.NOFOLLOW_LINKS);
    if (exists && !Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
      throw FailureCode.CONFLICT.exception("path '" + shown + "' exists and is not a regular file; nothing was written");
    }
    String content = args.getString("content");
    JsonObject out = new JsonObject().put("path", target.toString()).put("created", !exists);
    if (args.getBoolean("dry_run")) {
      String before = exists ? TextFile.currentOrEmpty(target, shown) : "";
      return out.put("dry_run", true).put("diff", UnifiedDiff.of(target.toString(), target.toString(), before, content));
    }
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    scope.createParents(target);
    AtomicFiles.write(target, bytes);
    return out.put("bytes_written", bytes.length);
  }
}
