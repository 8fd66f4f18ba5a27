package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.files.AtomicFiles;
import io.fleetbus.shared.text.UnifiedDiff;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;

/** write_file: whole content, atomically, parents created; dry_run answers the diff only. */
final class WriteFileTool extends CreatingTool {
  WriteFileTool(PathScope scope) {
    super(scope, p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS), "is not a regular file; nothing was written");
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    Target target = target(args);
    String content = args.getString("content");
    JsonObject out = target.answer();
    String where = target.path().toString();
    if (args.getBoolean("dry_run")) {
      String before = target.exists() ? TextFile.currentOrEmpty(target.path(), target.shown()) : "";
      return out.put("dry_run", true).put("diff", UnifiedDiff.of(where, where, before, content));
    }
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    scope.createParents(target.path());
    AtomicFiles.write(target.path(), bytes);
    return out.put("bytes_written", bytes.length);
  }
}
