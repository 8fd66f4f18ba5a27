package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/** list_directory: one folder's entries, links shown as links, fleetbus private folders left out. */
final class ListDirectoryTool implements ToolHandler {
  private final PathScope scope;

  ListDirectoryTool(PathScope scope) {
    this.scope = scope;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    Path dir = scope.existing("path", args.getString("path"));
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      throw FailureCode.BAD_REQUEST.exception("path '" + args.getString("path") + "' is not a folder; read_file reads files");
    }
    int limit = args.getInteger("limit");
    List<Path> children = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path child : ds) {
        // a fleetbus private folder is not even named
        if (!(Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS) && scope.privateFolder(child))) {
          children.add(child);
        }
      }
    }
    children.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
    JsonArray entries = new JsonArray();
    for (Path child : children.subList(0, Math.min(limit, children.size()))) {
      entries.add(describe(child));
    }
    JsonObject out = new JsonObject().put("path", dir.toString()).put("entries", entries).put("count", entries.size())
      .put("total", children.size());
    return children.size() > limit ? out.put("truncated", true) : out;
  }

  static JsonObject describe(Path p) {
    JsonObject e = new JsonObject().put("name", p.getFileName().toString());
    try {
      BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      String type = a.isSymbolicLink() ? "symlink" : a.isDirectory() ? "directory" : a.isRegularFile() ? "file" : "other";
      return e.put("type", type).put("file_type", type).put("size", a.size())
        .put("modified", a.lastModifiedTime().toInstant().toString());
    } catch (IOException ex) {
      return e.put("type", "unreadable");
    }
  }
}
