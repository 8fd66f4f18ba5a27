package io.fleetbus.node.tools.sandbox;

import io.fleetbus.node.NodeSettings;
import io.fleetbus.node.tools.ToolSettings;
import io.fleetbus.shared.bus.FailureCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where this node's file tools may reach. A path argument is checked twice before anything is read
 * or written: as written (it must lie in an allowed root and outside every denied folder) and as the
 * real place it names after {@code toRealPath()} (the same test again, so a symbolic link that leads
 * out is refused). For a path that does not exist yet, the real path of its nearest existing parent
 * stands in. Comparisons are {@link Path#startsWith(Path)} on whole segments, never on strings.
 */
public final class PathScope {
  /** Folders a sudo node never touches. */
  public static final List<String> SYSTEM_PATHS = List.of("/etc", "/root", "/proc", "/sys", "/boot", "/dev");

  private final List<Path> allowed;
  private final List<Path> denied;
  private final String description;

  PathScope(List<Path> allowedRoots, List<Path> deniedPaths, String description) {
    this.allowed = withRealForms(allowedRoots);
    this.denied = withRealForms(deniedPaths);
    this.description = description;
  }

  /** The scope of this node's capability tier (creates the sandbox folder of an unprivileged node). */
  public static PathScope of(NodeSettings settings) {
    ToolSettings t = settings.tools();
    if (settings.unprivileged()) {
      try {
        Files.createDirectories(t.sandboxDir());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the sandbox folder " + t.sandboxDir(), e);
      }
      return new PathScope(List.of(t.sandboxDir()), t.deniedPaths(),
        "an unprivileged node only reaches its sandbox folder " + t.sandboxDir());
    }
    List<Path> denied = new ArrayList<>(t.deniedPaths());
    String what = "a " + settings.capabilityTier() + " node reaches " + t.allowedRoots();
    if ("sudo".equals(settings.capabilityTier())) {
      SYSTEM_PATHS.forEach(p -> denied.add(Path.of(p)));
      what += " except the system folders " + SYSTEM_PATHS;
    }
    if (!t.deniedPaths().isEmpty()) {
      what += " and never " + t.deniedPaths();
    }
    return new PathScope(t.allowedRoots(), denied, what);
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
    if (!allows(target)) {
      throw outOfScope(field, arg);
    }
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
    if (!allows(entry) || allowed.contains(entry)) {
      throw outOfScope(field, arg);
    }
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

  /** Whether a real (symlink-free) path lies in the scope: used by tools that walk folders. */
  public boolean allows(Path real) {
    return allowed.stream().anyMatch(real::startsWith) && denied.stream().noneMatch(real::startsWith);
  }

  /** Denied folders inside {@code root}: a walk from {@code root} must prune them. */
  public boolean hasDeniedInside(Path root) {
    return denied.stream().anyMatch(d -> d.startsWith(root) && !d.equals(root));
  }

  public String description() {
    return description;
  }

  private void checkWritten(String field, String arg, Path requested) {
    if (!allows(requested)) {
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
    if (!allows(real)) {
      throw FailureCode.FORBIDDEN.exception(field + " '" + arg + "' leads through a symbolic link to a place outside"
        + " this node's path scope (" + description + ")");
    }
    return real;
  }

  private RuntimeException outOfScope(String field, String arg) {
    return FailureCode.FORBIDDEN.exception(field + " '" + arg + "' is outside this node's path scope: " + description);
  }

  private static List<Path> withRealForms(List<Path> paths) {
    Set<Path> all = new LinkedHashSet<>();
    for (Path p : paths) {
      Path abs = p.toAbsolutePath().normalize();
      all.add(abs);
      try {
        all.add(abs.toRealPath());
      } catch (IOException e) {
        // not there (yet): the written form is all we can compare with
      }
    }
    return List.copyOf(all);
  }
}
