package io.fleetbus.node.grant;

import io.fleetbus.shared.files.PrivateMarker;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The folders no tool of this node ever reaches: the ones the grant names (the node's own data folder,
 * {@code paths.private}, {@code FLEETBUS_PRIVATE_PATHS}) and every folder that carries a {@link PrivateMarker}
 * (a hub's or another node's data or key folder). A path is private when it lies beneath a named folder or when one
 * of its ancestors carries the marker (one stat per ancestor; folders found marked are remembered). The one carve-out
 * is an unprivileged node's sandbox folder, which the default conf places inside its data folder.
 */
public final class PrivateFolders {
  /** The private files with several names are looked up again at most this often. */
  static final long INDEX_REFRESH_NANOS = 1_000_000_000L;
  static final int INDEX_MAX_ENTRIES = 200_000;

  private final List<Path> named;
  private final Path carveOut;
  private final boolean guard;
  private final Set<Path> markedSeen = ConcurrentHashMap.newKeySet();
  private final java.util.concurrent.atomic.AtomicLong generation = new java.util.concurrent.atomic.AtomicLong();
  /** The inodes of the private files that have more than one name. */
  private volatile Set<String> linkedInodes = Set.of();
  private volatile long indexedAt;

  PrivateFolders(List<Path> named, Path carveOut, boolean guard) {
    this.named = NodeGrant.withRealForms(named);
    this.carveOut = carveOut == null ? null : carveOut.toAbsolutePath().normalize();
    this.guard = guard;
  }

  /** Grows each time a marked folder is seen for the first time: rulesets built before leave it in. */
  public long generation() {
    return generation.get();
  }

  private void seen(Path marked) {
    if (markedSeen.add(marked)) {
      generation.incrementAndGet();
    }
  }

  /** The folders the grant names (absolute and real forms). */
  public List<Path> named() {
    return named;
  }

  /** Why {@code real} (a symlink-free absolute path) is private, or null when it is not. */
  public String reason(Path real) {
    if (!guard) {
      return null;
    }
    Path stop = carveOut != null && real.startsWith(carveOut) ? carveOut : null;
    if (stop == null) {
      for (Path p : named) {
        if (real.startsWith(p)) {
          return "fleetbus data folder " + p;
        }
      }
    }
    for (Path a = real; a != null && !a.equals(stop); a = a.getParent()) {
      if (markedSeen.contains(a)) {
        return "fleetbus data folder " + a;
      }
      if (PrivateMarker.marked(a)) {
        seen(a);
        return "fleetbus data folder " + a;
      }
    }
    return null;
  }

  /** For walks that start at a folder known not to be private: whether the sub-folder {@code dir} is (one stat). */
  public boolean prunes(Path dir) {
    if (!guard) {
      return false;
    }
    boolean inSandbox = carveOut != null && dir.startsWith(carveOut);
    if (markedSeen.contains(dir) || !inSandbox && named.stream().anyMatch(dir::startsWith)) {
      return true;
    }
    if (PrivateMarker.marked(dir)) {
      seen(dir);
      return true;
    }
    return false;
  }

  /**
   * The private folders the kernel ruleset must leave out now: the named ones, those seen marked, and the marked
   * folders among the named ones' siblings (where a hub or a second node keeps its data beside this node's).
   */
  public List<Path> forRuleset() {
    if (!guard) {
      return List.of();
    }
    Set<Path> out = new LinkedHashSet<>(named);
    out.addAll(markedSeen);
    for (Path sibling : siblings()) {
      if (PrivateMarker.marked(sibling)) {
        seen(sibling);
        out.add(sibling);
      }
    }
    return List.copyOf(out);
  }

  /** The parents of the named folders and the folders beside them: a new marked folder there changes one of them. */
  public List<Path> watched() {
    if (!guard) {
      return List.of();
    }
    Set<Path> out = new LinkedHashSet<>();
    named.stream().map(Path::getParent).filter(java.util.Objects::nonNull).forEach(out::add);
    out.addAll(siblings());
    return List.copyOf(out);
  }

  /** The folders beside the named ones (the places searched for markers; their state is part of a ruleset's stamp). */
  public List<Path> siblings() {
    List<Path> out = new ArrayList<>();
    for (Path p : named) {
      Path parent = p.getParent();
      if (parent == null || !Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(parent)) {
        for (Path s : ds) {
          if (!s.equals(p) && Files.isDirectory(s, LinkOption.NOFOLLOW_LINKS)) {
            out.add(s);
          }
        }
      } catch (IOException e) {
        // an unreadable parent holds nothing we could search
      }
    }
    return out;
  }

  /**
   * Whether the regular file {@code real} is also a name of a file inside a private folder (a hard link: the same
   * inode, which a path check alone cannot see). A second name makes the private file's own link count 2 or more, so
   * only the private files with several names are kept (an index at most {@link #INDEX_REFRESH_NANOS} old): while
   * there is none — the usual case — no file is even looked at; otherwise only files with several names are.
   */
  public boolean hardLinkIntoPrivate(Path real) {
    return hardLinkIntoPrivate(real, false);
  }

  /** As above; {@code fresh} (one path, not a walk): a file with several names is looked up in an index made now. */
  public boolean hardLinkIntoPrivate(Path real, boolean fresh) {
    if (!guard) {
      return false;
    }
    if (!fresh && System.nanoTime() - indexedAt > INDEX_REFRESH_NANOS) {
      reindex();
    }
    if (!fresh && linkedInodes.isEmpty()) {
      return false;
    }
    try {
      if ((Integer) Files.getAttribute(real, "unix:nlink", LinkOption.NOFOLLOW_LINKS) <= 1
        || !Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
        return false;
      }
      if (fresh) {
        reindex();
      }
      return linkedInodes.contains(inodeKey(real));
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  /**
   * Before a kernel ruleset is built: a file in a private folder that has a second name (a hard link made by something
   * fleetbus does not confine) would be reachable through that name, which the kernel checks as any other path — so
   * no ruleset is built until it is gone (503 naming the file). A fleetbus process cannot make one: linking needs
   * rights on the file's folder, which no ruleset grants.
   */
  public void refuseSecondNames() {
    if (!guard) {
      return;
    }
    List<Path> linked = reindex();
    if (!linked.isEmpty()) {
      throw io.fleetbus.shared.bus.FailureCode.NO_ELIGIBLE_NODE.exception("the fleetbus data file " + linked.get(0)
        + " has a second name (a hard link) elsewhere on this machine, through which a started process could read it:"
        + " remove that name (find / -xdev -samefile " + linked.get(0) + "); this node starts no process until then");
    }
  }

  private synchronized List<Path> reindex() {
    Set<String> found = new HashSet<>();
    List<Path> linked = new ArrayList<>();
    for (Path folder : forRuleset()) {
      try (Stream<Path> walk = Files.walk(folder)) {
        walk.limit(INDEX_MAX_ENTRIES).filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).forEach(p -> {
          try {
            if ((Integer) Files.getAttribute(p, "unix:nlink", LinkOption.NOFOLLOW_LINKS) > 1) {
              found.add(inodeKey(p));
              linked.add(p);
            }
          } catch (IOException e) {
            // vanished while indexed
          }
        });
      } catch (IOException | java.io.UncheckedIOException e) {
        // not there (yet) or unreadable: nothing of it to index
      }
    }
    linkedInodes = Set.copyOf(found);
    indexedAt = System.nanoTime();
    return linked;
  }

  private static String inodeKey(Path p) throws IOException {
    return Files.getAttribute(p, "unix:dev", LinkOption.NOFOLLOW_LINKS) + ":"
      + Files.getAttribute(p, "unix:ino", LinkOption.NOFOLLOW_LINKS);
  }
}
