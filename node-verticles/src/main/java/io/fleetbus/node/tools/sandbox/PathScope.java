package io.fleetbus.node.tools.sandbox;

import io.fleetbus.node.grant.NodeGrant;
import io.fleetbus.node.grant.PrivateFolders;
import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.shared.bus.FailureCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * Where this node's file tools may reach. A path argument is checked twice before anything is read
 * or written: as written (it must lie in an allowed root and outside every denied folder) and as the
 * real place it names after {@code toRealPath()} (the same test again, so a symbolic link that leads
 * out is refused). For a path that does not exist yet, the real path of its nearest existing parent
 * stands in. Comparisons are {@link Path#startsWith(Path)} on whole segments, never on strings.
 * Whatever the scope, a real path inside a fleetbus private folder (the node's data folder, {@code paths.private},
 * any folder marked {@code .fleetbus-private}), or a regular file that is a second name of a file in one, is refused
 * (403): see {@link NodeGrant}.
 */
public final class PathScope {
  /** Folders a sudo node never touches. */
  public static final List<String> SYSTEM_PATHS = NodeGrant.SYSTEM_PATHS;

  private final List<Path> allowed;
  private final List<Path> denied;
  private final PrivateFolders privates;
  private final String description;

  private PathScope(NodeGrant grant) {
    this.allowed = grant.allowed();
    this.denied = grant.denied();
    this.privates = grant.privateFolders();
    this.description = grant.description();
  }

  /** The scope of this node's capability tier (creates the sandbox folder of an unprivileged node). */
  public static PathScope of(NodeSettings settings) {
    if (settings.unprivileged()) {
      try {
        Files.createDirectories(settings.tools().sandboxDir());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the sandbox folder " + settings.tools().sandboxDir(), e);
      }
    }
    return of(NodeGrant.of(settings));
  }

  /** The file tools' side of {@code grant}. */
  public static PathScope of(NodeGrant grant) {
    return new PathScope(grant);
  }

  /** A file or folder that must exist: its real path, inside the scope. */
  public Path existing(String field, String arg) {
    Path requested = PathArgument.parse(field, arg);
    checkWritten(field, arg, requested);
    if (!Files.exists(requested, LinkOption.NOFOLLOW_LINKS)) {
      throw FailureCode.NOT_FOUND.exception(field + " '" + arg + "' does not exist on this node");
    }
    return checkedReal(field, arg, requested);
  }

  /**
   * A place to create or overwrite: the real path of an existing entry, or the real path of the
   * nearest existing parent with the missing segments appended.
   */
  public Path forCreate(String field, String arg) {
    Path requested = PathArgument.parse(field, arg);
    checkWritten(field, arg, requested);
    if (Files.exists(requested, LinkOption.NOFOLLOW_LINKS)) {
      return checkedReal(field, arg, requested);
    }
    Path parent = requested.getParent();
    while (parent != null && !Files.exists(parent, LinkOption.NOFOLLOW_LINKS)) {
      parent = parent.getParent();
    }
    if (parent == null) {
      throw FailureCode.BAD_REQUEST.exception(field + " '" + arg + "' has no existing parent folder");
    }
    Path realParent = checkedReal(field, arg, parent);
    Path target = realParent.resolve(parent.relativize(requested));
    if (!inScope(target)) {
      throw outOfScope(field, arg);
    }
    refuseIfPrivate(field, arg, target);
    return target;
  }

  /**
   * An existing entry to remove or rename, named by its own path (a symbolic link is the link, not its
   * target): the real path of its parent plus its name. The scope's own roots are never such an entry.
   */
  public Path existingEntry(String field, String arg) {
    Path requested = PathArgument.parse(field, arg);
    checkWritten(field, arg, requested);
    if (requested.getParent() == null || allowed.contains(requested)) {
      throw FailureCode.FORBIDDEN.exception(field + " '" + arg + "' is a root of this node's path scope; it cannot be"
        + " removed through fleetbus");
    }
    if (!Files.exists(requested, LinkOption.NOFOLLOW_LINKS)) {
      throw FailureCode.NOT_FOUND.exception(field + " '" + arg + "' does not exist on this node");
    }
    Path entry = checkedReal(field, arg, requested.getParent()).resolve(requested.getFileName());
    if (!inScope(entry) || allowed.contains(entry)) {
      throw outOfScope(field, arg);
    }
    refuseIfPrivate(field, arg, entry);
    return entry;
  }

  /**
   * Creates {@code target}'s missing parent folders (blocking) and checks they still lie where the scope
   * check said they would: a symbolic link that appeared in between refuses the write.
   */
  public void createParents(Path target) throws java.io.IOException {
    Path parent = target.getParent();
    Files.createDirectories(parent);
    Path real = parent.toRealPath();
    if (!real.equals(parent) || !allows(real)) {
      // a link appeared between the check and the creation: do not write anywhere it might lead
      throw FailureCode.FORBIDDEN.exception("the folder of '" + target + "' changed while writing (a symbolic link"
        + " appeared); nothing was written");
    }
  }

  /** Whether a real (symlink-free) path lies in the scope and in no fleetbus private folder. */
  public boolean allows(Path real) {
    return inScope(real) && privates.reason(real) == null;
  }

  /**
   * For walks that started at a folder this scope allowed: whether the entry {@code p} (a child, never followed)
   * may be visited — in the scope, not a private folder, not a second name of a private file.
   */
  public boolean allowsInWalk(Path p, boolean directory) {
    if (!inScope(p)) {
      return false;
    }
    return directory ? !privates.prunes(p) : !privates.hardLinkIntoPrivate(p);
  }

  /** Whether {@code dir} (a real path) is a fleetbus private folder: listings leave it out, deletions refuse it. */
  public boolean privateFolder(Path dir) {
    return privates.prunes(dir);
  }

  /** Denied or private folders inside {@code root}: a search there must use the walk that prunes them. */
  public boolean hasDeniedInside(Path root) {
    return denied.stream().anyMatch(d -> d.startsWith(root) && !d.equals(root))
      || privates.named().stream().anyMatch(d -> d.startsWith(root) && !d.equals(root));
  }

  private boolean inScope(Path p) {
    return allowed.stream().anyMatch(p::startsWith) && denied.stream().noneMatch(p::startsWith);
  }

  public String description() {
    return description;
  }

  private void checkWritten(String field, String arg, Path requested) {
    if (!inScope(requested)) {
      throw outOfScope(field, arg);
    }
  }

  private Path checkedReal(String field, String arg, Path existing) {
    Path real;
    try {
      real = existing.toRealPath();
    } catch (IOException e) {
      // a dangling or looping link: whatever it names is not something we can vouch for
      throw FailureCode.FORBIDDEN.exception(field + " '" + arg + "' is a symbolic link that cannot be resolved ("
        + e.getClass().getSimpleName() + "); refused");
    }
    if (!inScope(real)) {
      throw FailureCode.FORBIDDEN.exception(field + " '" + arg + "' leads through a symbolic link to a place outside"
        + " this node's path scope (" + description + ")");
    }
    refuseIfPrivate(field, arg, real);
    return real;
  }

  /**
   * A fleetbus data folder, or a second name (hard link) of a file in one: 403 at every tier, whatever the conf
   * ({@code real} is the real place {@code arg} names; other tools' argument checks use this too).
   */
  public void refuseIfPrivate(String field, String arg, Path real) {
    String why = privates.reason(real);
    if (why == null && privates.hardLinkIntoPrivate(real, true)) {
      why = "a hard link to a file in a fleetbus data folder";
    }
    if (why != null) {
      throw FailureCode.FORBIDDEN.exception(field + " '" + arg + "' is in a " + why + ": fleetbus data folders (keys,"
        + " credentials, call journals, job output) are never reachable by any tool, at any tier; no conf key allows it");
    }
  }

  private RuntimeException outOfScope(String field, String arg) {
    return FailureCode.FORBIDDEN.exception(field + " '" + arg + "' is outside this node's path scope: " + description);
  }
}
