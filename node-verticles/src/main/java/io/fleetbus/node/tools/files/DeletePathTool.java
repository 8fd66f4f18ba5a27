package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** delete_path: a file, a link (never its target) or a folder; a non-empty folder needs recursive. */
final class DeletePathTool implements ToolHandler {
  private final PathScope scope;

  DeletePathTool(PathScope scope) {
    this.scope = scope;
  }

  @Override
  public void check(JsonObject args) {
    scope.existingEntry("path", args.getString("path"));
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    String shown = args.getString("path");
    Path entry = scope.existingEntry("path", shown);
    BasicFileAttributes attrs = Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    String kind = attrs.isSymbolicLink() ? "symlink" : attrs.isDirectory() ? "directory" : "file";
    long removed = 1;
    if (attrs.isDirectory()) {
      boolean empty;
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(entry)) {
        empty = !ds.iterator().hasNext();
      }
      if (!empty && !args.getBoolean("recursive")) {
        throw FailureCode.CONFLICT.exception("folder '" + shown + "' is not empty; pass recursive=true to delete it with"
          + " everything in it");
      }
      removed = deleteTree(entry);
    } else {
      Files.delete(entry);
    }
    return new JsonObject().put("path", entry.toString()).put("deleted", kind).put("entries_removed", removed);
  }

  /** Depth-first, never following links (a link inside is removed as a link). */
  private long deleteTree(Path root) throws IOException {
    // first look (nothing deleted yet): a tree that holds a fleetbus data folder is refused whole
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes a) {
        if (scope.privateFolder(dir)) {
          throw holdsPrivate(root, dir);
        }
        return FileVisitResult.CONTINUE;
      }
    });
    long[] count = {0};
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes a) {
        if (scope.privateFolder(dir)) {
          throw holdsPrivate(root, dir);
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes a) throws IOException {
        Files.delete(file);
        count[0]++;
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
        if (e != null) {
          throw e;
        }
        Files.delete(dir);
        count[0]++;
        return FileVisitResult.CONTINUE;
      }
    });
    return count[0];
  }

  private static RuntimeException holdsPrivate(Path root, Path dir) {
    return FailureCode.FORBIDDEN.exception("'" + root + "' holds the fleetbus data folder " + dir + ", which no tool"
      + " reaches, at any tier (no conf key allows it); nothing was deleted");
  }
}
