package io.fleetbus.node.confine;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Handles on the exact files a ruleset walk saw, never following a link: each child is opened with
 * {@code openat(parent, name, O_PATH | O_NOFOLLOW)} relative to its parent's handle, and its type read from the handle
 * itself ({@code fstat}). A rule then names {@code /proc/self/fd/N}, which Landlock opens to that very inode: a folder
 * swapped for a link between the walk and the restriction cannot redirect the rule. Without JNA or /proc (or for the
 * rules shown to tests and logs), handles are plain paths typed with {@code NOFOLLOW_LINKS}.
 */
final class PathHandles implements AutoCloseable {
  private static final int O_PATH = 0x200000;
  private static final int O_NOFOLLOW = 0x20000;
  private static final int O_CLOEXEC = 0x80000;
  private static final int AT_FDCWD = -100;
  private static final long SYS_FSTAT = 5;
  private static final int S_IFMT = 0170000;
  private static final int S_IFDIR = 0040000;
  private static final int S_IFLNK = 0120000;

  enum Kind { DIRECTORY, LINK, OTHER }

  /** One file the walk reached: its path (symlink-free: built from real names), its handle (-1: none), its kind. */
  record Handle(Path path, int fd, Kind kind) {
    /** What a rule names: the handle where there is one, else the path. */
    Path ruleKey() {
      return fd < 0 ? path : Path.of("/proc/self/fd/" + fd);
    }
  }

  interface C extends Library {
    int openat(int dirfd, String path, int flags);

    int close(int fd);

    long syscall(long number, Object... args);
  }

  private static final C LIBC = load();
  private final boolean bind;
  private final List<Integer> open = new ArrayList<>();

  /** @param bind whether to hold real handles (a launcher's ruleset) or only paths (what tests and logs see) */
  PathHandles(boolean bind) {
    this.bind = bind && LIBC != null && Files.isDirectory(Path.of("/proc/self/fd"));
  }

  private static C load() {
    try {
      return "amd64".equals(System.getProperty("os.arch")) ? Native.load("c", C.class) : null;
    } catch (Throwable e) {
      return null;
    }
  }

  /** A scope root (a real path from the conf: the one place a link may still have been followed, when it was resolved). */
  Handle root(Path root) {
    return at(AT_FDCWD, root.toString(), root);
  }

  /** The entry {@code name} of the folder {@code parent}, never following a link; null when it is gone. */
  Handle child(Handle parent, String name) {
    Path path = parent.path().resolve(name);
    return bind ? at(parent.fd(), name, path) : at(AT_FDCWD, path.toString(), path);
  }

  private Handle at(int dirfd, String name, Path path) {
    if (!bind) {
      try {
        BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return new Handle(path, -1, a.isSymbolicLink() ? Kind.LINK : a.isDirectory() ? Kind.DIRECTORY : Kind.OTHER);
      } catch (IOException e) {
        return null;
      }
    }
    int fd = LIBC.openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      return null;
    }
    synchronized (open) {
      open.add(fd);
    }
    Memory stat = new Memory(144);
    if (LIBC.syscall(SYS_FSTAT, fd, stat) < 0) {
      return new Handle(path, fd, Kind.LINK); // unknown: treated like a link, granted nothing
    }
    int type = stat.getInt(24) & S_IFMT;
    return new Handle(path, fd, type == S_IFDIR ? Kind.DIRECTORY : type == S_IFLNK ? Kind.LINK : Kind.OTHER);
  }

  /** Lets go of a handle no rule will name (a link, a folder only walked through). */
  void release(Handle h) {
    if (h != null && h.fd() >= 0) {
      synchronized (open) {
        if (open.remove((Integer) h.fd())) {
          LIBC.close(h.fd());
        }
      }
    }
  }

  /** Whether this walk holds real handles. */
  boolean binds() {
    return bind;
  }

  /** Closes every handle (after the launcher restricted itself: the ruleset holds the inodes from then on). */
  @Override
  public void close() {
    synchronized (open) {
      open.forEach(LIBC::close);
      open.clear();
    }
  }
}
