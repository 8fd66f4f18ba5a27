package io.fleetbus.node.tools.disk;

import io.fleetbus.node.settings.ToolSettings;
import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.logs.AgentLogFile;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * clean_disk_space: deletes regular files older than N days from a named target folder (links are
 * never followed, folders are kept, the agent's live log is spared). dry_run only counts.
 */
public final class CleanDiskSpaceTool implements ToolHandler {
  private final PathScope scope;

  public CleanDiskSpaceTool(PathScope scope) {
    this.scope = scope;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    Map<String, Path> targets = targets(ctx.settings().tools(), ctx.settings().dataDir());
    String target = args.getString("target");
    Path folder = targets.get(target);
    if (folder == null) {
      throw FailureCode.BAD_REQUEST.exception("target '" + target + "' is not known on this node; targets: " + targets.keySet());
    }
    JsonObject out = new JsonObject().put("target", target).put("folder", folder.toString());
    if (!Files.isDirectory(folder)) {
      return out.put("files", 0).put("bytes", 0).put("note", "the folder does not exist yet");
    }
    // the node's own log folder is its own to clean (only rolled files older than the cutoff, counts returned): it lies
    // in the data folder no path argument reaches, and is named here by the node itself, never by the caller
    boolean own = "agent_logs".equals(target);
    Path root = own ? folder.toRealPath() : scope.existing("target", folder.toString());
    Path liveLog = AgentLogFile.of(ctx.settings().dataDir()).toAbsolutePath().normalize();
    Instant cutoff = Instant.now().minus(args.getInteger("older_than_days"), ChronoUnit.DAYS);
    boolean dryRun = args.getBoolean("dry_run");
    long[] counts = new long[3]; // files, bytes, failures
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        boolean enter = dir.equals(root) || !own && scope.allows(dir);
        return enter ? FileVisitResult.CONTINUE : FileVisitResult.SKIP_SUBTREE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes a) {
        if (!a.isRegularFile() || file.equals(liveLog) || !a.lastModifiedTime().toInstant().isBefore(cutoff)) {
          return FileVisitResult.CONTINUE;
        }
        try {
          if (!dryRun) {
            Files.delete(file);
          }
          counts[0]++;
          counts[1] += a.size();
        } catch (IOException e) {
          counts[2]++;
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) {
        counts[2]++;
        return FileVisitResult.CONTINUE;
      }
    });
    return out.put("older_than_days", args.getInteger("older_than_days")).put("dry_run", dryRun)
      .put(dryRun ? "would_delete_files" : "deleted_files", counts[0]).put("bytes", counts[1]).put("failed", counts[2]);
  }

  static Map<String, Path> targets(ToolSettings t, Path dataDir) {
    Map<String, Path> targets = new LinkedHashMap<>();
    targets.put("temp", t.cleanup().tempDir());
    targets.put("agent_logs", AgentLogFile.of(dataDir).toAbsolutePath().normalize().getParent());
    targets.putAll(t.cleanup().folders());
    return targets;
  }
}
