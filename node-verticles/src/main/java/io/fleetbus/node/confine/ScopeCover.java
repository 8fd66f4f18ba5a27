package io.fleetbus.node.confine;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file-scope part of one ruleset: {@code rights} beneath each allowed root, except beneath the excluded folders.
 * Landlock only adds rights, and a right on a folder holds for everything beneath it, so a folder that holds an
 * excluded one (a <em>holder</em>) gets no right at all — not even listing, which would list the excluded folder's
 * contents too — and each of its entries is covered on its own: a folder or file gets the rights, a holder is walked
 * in turn, a symbolic link gets nothing (it is never followed: what it points to is covered where it lies, or not at
 * all). The recursion only descends into holders, which are prefixes of the excluded paths, so its depth is bounded
 * by theirs (and by {@link #MAX_DEPTH}); no link can loop it. Each holder's state is recorded: when one changes (an
 * entry added, removed, renamed), the ruleset is stale and its launchers are rebuilt.
 *
 * <p>Where the launcher hides excluded folders ({@link MountHiding}: an empty read-only tmpfs over each), a holder gets
 * rights of its own after all: listing, and making, writing and removing files and making folders in it when all it
 * holds is hidden; listing only when it holds a system folder that stays in view ({@link LandlockRules#SHOWN}) or an
 * excluded file; none when it holds an excluded folder that is neither. Never the right to remove or rename a folder
 * in it (which would carry a hidden folder somewhere it is not hidden) nor to move entries across folders.
 */
final class ScopeCover {
  private static final Logger LOG = LoggerFactory.getLogger(ScopeCover.class);
  static final int MAX_DEPTH = 64;

  /** What a holder of hidden folders only may do in itself (see the class comment). */
  static final long HOLDER_RIGHTS = Landlock.READ_DIR | Landlock.READ_FILE | Landlock.WRITE_FILE | Landlock.MAKE_REG
    | Landlock.MAKE_DIR | Landlock.MAKE_SYM | Landlock.REMOVE_FILE | Landlock.TRUNCATE;

  private final List<Path> excluded;
  private final List<Path> hidden;
  private final PathHandles handles;
  private final Map<Path, String> stamps;
  private final java.util.Set<Path> holders = new java.util.TreeSet<>();

  /** @param hidden the excluded folders the launcher hides (empty: holders get no rights) */
  ScopeCover(List<Path> excluded, List<Path> hidden, PathHandles handles, Map<Path, String> stamps) {
    this.excluded = excluded;
    this.hidden = hidden;
    this.handles = handles;
    this.stamps = stamps;
  }

  void cover(Path root, long rights, Map<Path, Long> rules) {
    if (isExcluded(root)) {
      return;
    }
    PathHandles.Handle h = handles.root(root);
    if (h != null) {
      cover(h, rights, rules, 0);
    }
  }

  private void cover(PathHandles.Handle h, long rights, Map<Path, Long> rules, int depth) {
    if (h.kind() == PathHandles.Kind.LINK) {
      handles.release(h);
      return;
    }
    if (h.kind() != PathHandles.Kind.DIRECTORY) {
      rules.merge(h.ruleKey(), rights & Landlock.FILE_RIGHTS, (a, b) -> a | b);
      return;
    }
    if (!holdsExcluded(h.path())) {
      rules.merge(h.ruleKey(), rights, (a, b) -> a | b);
      return;
    }
    if (depth >= MAX_DEPTH) {
      LOG.warn("{} lies deeper than {} folders below a scope root: left out of the confinement scope", h.path(), MAX_DEPTH);
      handles.release(h);
      return;
    }
    stamps.put(h.path(), stamp(h.path()));
    holders.add(h.path());
    for (String name : names(h.path())) {
      Path child = h.path().resolve(name);
      if (isExcluded(child)) {
        continue;
      }
      PathHandles.Handle c = handles.child(h, name);
      if (c != null) {
        cover(c, rights, rules, depth + 1);
      }
    }
    long own = holderRights(h.path(), rights);
    if (own != 0) {
      rules.merge(h.ruleKey(), own, (a, b) -> a | b);
    } else {
      handles.release(h);
    }
  }

  /** A holder's own rights (see the class comment). */
  long holderRights(Path dir, long rights) {
    if (hidden.isEmpty()) {
      return 0;
    }
    boolean inView = false;
    for (Path ex : excluded) {
      if (!ex.startsWith(dir) || ex.equals(dir) || hidden.stream().anyMatch(ex::startsWith)) {
        continue;
      }
      if (!LandlockRules.SHOWN.contains(ex) && Files.isDirectory(ex, LinkOption.NOFOLLOW_LINKS)) {
        return 0;
      }
      inView = true;
    }
    return rights & (inView ? Landlock.READ_DIR : HOLDER_RIGHTS);
  }

  /**
   * The walk as it was before issue 30, kept for the tests that show what it let through: a holder may be listed
   * (which lists its excluded entries' contents too), a link is judged and granted by where it leads (the rule binds
   * its target), and a link to an ancestor recurses until the stack runs out.
   */
  void coverFollowingLinks(Path dir, long rights, Map<Path, Long> rules) {
    if (isExcluded(dir)) {
      return;
    }
    if (!holdsExcluded(dir)) {
      rules.merge(dir, rights, (a, b) -> a | b);
      return;
    }
    rules.merge(dir, rights & Landlock.READ_DIR, (a, b) -> a | b);
    for (String name : names(dir)) {
      Path child = dir.resolve(name);
      Path real;
      try {
        real = child.toRealPath();
      } catch (IOException e) {
        real = child;
      }
      if (Files.isDirectory(child)) {
        coverFollowingLinks(real, rights, rules);
      } else if (!isExcluded(real)) {
        rules.merge(child, rights, (a, b) -> a | b);
      }
    }
  }

  /** The folders walked because they hold excluded ones: started processes can neither list them nor add to them. */
  java.util.Set<Path> holders() {
    return holders;
  }

  private boolean isExcluded(Path p) {
    return excluded.stream().anyMatch(p::startsWith);
  }

  private boolean holdsExcluded(Path dir) {
    return excluded.stream().anyMatch(ex -> ex.startsWith(dir) && !ex.equals(dir));
  }

  private static List<String> names(Path dir) {
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      ds.forEach(p -> names.add(p.getFileName().toString()));
    } catch (IOException e) {
      LOG.warn("cannot list {} for the confinement scope: its entries are left out [reason: {}]", dir, e.getMessage());
    }
    return names;
  }

  /** What a folder's state is now: inode, link count, modification and change times (an entry added or gone moves them). */
  static String stamp(Path dir) {
    try {
      return Files.readAttributes(dir, "unix:ino,nlink,lastModifiedTime,ctime", LinkOption.NOFOLLOW_LINKS).toString();
    } catch (IOException | UnsupportedOperationException e) {
      return "absent";
    }
  }
}
