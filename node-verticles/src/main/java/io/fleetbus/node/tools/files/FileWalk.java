package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.sandbox.PathScope;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A depth-first walk over regular files, entries of each folder in name order (the order ripgrep's
 * {@code --sort path} uses, so both grep engines answer alike). Symbolic links are never followed or
 * returned, VCS folders, fleetbus private folders, second names of their files and anything outside the scope are
 * skipped, and the walk stops at a file
 * count or a deadline rather than running unbounded over a large tree.
 */
final class FileWalk {
  static final Set<String> VCS_FOLDERS = Set.of(".git", ".hg", ".svn", ".bzr", "_darcs", "CVS");
  static final int MAX_FILES_VISITED = 200_000;

  /** Receives each regular file; returns false to stop the walk. */
  interface Visitor {
    boolean file(Path file, BasicFileAttributes attrs) throws IOException;
  }

  /** Why a walk stopped early, or null when it saw everything. */
  record Outcome(int filesVisited, String stoppedBecause) {
  }

  private final PathScope scope;
  private final long deadlineNanos;
  private int visited;
  private String stopped;

  FileWalk(PathScope scope, long budgetMs) {
    this.scope = scope;
    this.deadlineNanos = System.nanoTime() + budgetMs * 1_000_000;
  }

  Outcome walk(Path root, Visitor visitor) throws IOException {
    BasicFileAttributes attrs = Files.readAttributes(root, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (attrs.isRegularFile()) {
      visitor.file(root, attrs);
      return new Outcome(1, null);
    }
    descend(root, visitor);
    return new Outcome(visited, stopped);
  }

  private boolean descend(Path dir, Visitor visitor) throws IOException {
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      ds.forEach(entries::add);
    } catch (IOException e) {
      return true; // unreadable folder: skip it, as rg does
    }
    entries.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
    for (Path p : entries) {
      if (stopped != null) {
        return false;
      }
      if (System.nanoTime() > deadlineNanos) {
        stopped = "time budget used up after " + visited + " files";
        return false;
      }
      BasicFileAttributes a;
      try {
        a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      } catch (IOException e) {
        continue;
      }
      if (a.isSymbolicLink() || !scope.allowsInWalk(p, a.isDirectory())) {
        continue;
      }
      if (a.isDirectory()) {
        if (!VCS_FOLDERS.contains(p.getFileName().toString()) && !descend(p, visitor)) {
          return false;
        }
      } else if (a.isRegularFile()) {
        if (++visited > MAX_FILES_VISITED) {
          stopped = "visited the maximum of " + MAX_FILES_VISITED + " files";
          return false;
        }
        if (!visitor.file(p, a)) {
          stopped = "enough results";
          return false;
        }
      }
    }
    return true;
  }
}
