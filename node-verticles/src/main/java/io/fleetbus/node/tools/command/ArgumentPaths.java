package io.fleetbus.node.tools.command;

import io.fleetbus.node.confine.SystemReads;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * The path scope applied to command arguments: an argument that names a place (has a '/' or is
 * '..', also after an {@code --option=}) must lie inside the scope as written from the working
 * folder and as the real place it leads to, so {@code cat /etc/shadow} is refused on a sudo node just
 * as read_file would be.
 */
final class ArgumentPaths {
  private ArgumentPaths() {
  }

  static void check(PathScope scope, Path cwd, List<String> args) {
    check(scope, cwd, args, false);
  }

  /**
   * @param views also the read-only system views ({@link SystemReads}): only where the kernel confines the command,
   *              so that a write through such an argument fails there
   */
  static void check(PathScope scope, Path cwd, List<String> args, boolean views) {
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      String value = arg.startsWith("-") && arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : arg;
      if (!value.contains("/") && !value.equals("..") && !value.startsWith("~")) {
        continue;
      }
      if (value.startsWith("~")) {
        throw FailureCode.BAD_REQUEST.exception("argument " + i + " '" + arg + "' starts with '~'; give the full path");
      }
      Path p;
      try {
        p = cwd.resolve(value).normalize();
      } catch (InvalidPathException e) {
        throw FailureCode.BAD_REQUEST.exception("argument " + i + " is not a valid path: " + e.getReason());
      }
      scope.refuseIfPrivate("argument " + i, arg, real(p));
      boolean inScope = scope.allows(p) && scope.allows(real(p));
      if (!inScope && !(views && SystemReads.covers(p) && SystemReads.covers(real(p)))) {
        throw FailureCode.FORBIDDEN.exception("argument " + i + " '" + arg + "' names a place outside this node's path scope: "
          + scope.description() + (views ? " (besides the read-only system views: /proc, /etc/os-release, /var/log …)"
          : ""));
      }
    }
  }

  /** The real place, or the real parent plus the rest when it does not exist (yet). */
  private static Path real(Path p) {
    Path existing = p;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return p;
    }
    try {
      return existing.toRealPath().resolve(existing.relativize(p));
    } catch (IOException e) {
      return Path.of("/dev/null/unresolvable"); // a dangling or looping link: treated as leading out
    }
  }
}
