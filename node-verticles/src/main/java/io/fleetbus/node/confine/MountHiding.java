package io.fleetbus.node.confine;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hides excluded folders from a launcher thread by mounting an empty, read-only tmpfs over each, in a mount namespace
 * of that thread's own (unshare(CLONE_NEWNS) is per thread; every process it starts inherits the namespace, the node's
 * other threads keep the real view). What it buys: a folder that holds a hidden one no longer has to be walked around
 * with no rights at all (Landlock's rights hold for everything beneath a folder), so it can be listed and written like
 * any other — {@code ls} and {@code git status} of a checkout whose {@code data/} holds the hub's and node's folders,
 * {@code ls /} on a sudo node. A confined process cannot undo it: Landlock denies mount and umount to a restricted
 * thread's processes, and the capabilities are dropped on every tier that confines. It needs CAP_SYS_ADMIN (a node
 * running as root); elsewhere, or with {@code confinement.hideFolders: false}, the holders keep no rights.
 */
final class MountHiding {
  private static final Logger LOG = LoggerFactory.getLogger(MountHiding.class);
  private static final int CLONE_NEWNS = 0x00020000;
  private static final long MS_RDONLY = 1;
  private static final long MS_NOSUID = 2;
  private static final long MS_NODEV = 4;
  private static final long MS_NOEXEC = 8;
  private static final long MS_REC = 1 << 14;
  private static final long MS_PRIVATE = 1 << 18;
  private static final int ENOENT = 2;
  /** The tmpfs's source name: what {@code /proc/self/mountinfo} shows for a hidden folder. */
  static final String SOURCE = "fleetbus-hidden";

  interface C extends Library {
    int unshare(int flags);

    int mount(String source, String target, String type, long flags, String data);
  }

  private static volatile Boolean available;

  private MountHiding() {
  }

  private static C libc() {
    return Native.load("c", C.class);
  }

  /**
   * Whether this node can hide folders: a thread of its own tries a private mount namespace once (root, and a kernel
   * and a container that allow it); the thread ends with its namespace.
   */
  static boolean available() {
    Boolean a = available;
    if (a == null) {
      boolean[] ok = {false};
      Thread probe = new Thread(() -> ok[0] = privateNamespace() == 0, "fleetbus-mount-probe");
      probe.start();
      try {
        probe.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      available = a = ok[0];
      LOG.info("hiding excluded folders from confined processes (a mount namespace per launcher): {}",
        a ? "available" : "not available (needs root and a kernel that allows unshare(CLONE_NEWNS))");
    }
    return a;
  }

  /** 0 when the calling thread is now in a mount namespace of its own whose mounts propagate nowhere. */
  private static int privateNamespace() {
    try {
      C c = libc();
      if (c.unshare(CLONE_NEWNS) != 0) {
        return Native.getLastError();
      }
      return c.mount("none", "/", null, MS_REC | MS_PRIVATE, null) == 0 ? 0 : Native.getLastError();
    } catch (UnsatisfiedLinkError | RuntimeException e) {
      return -1;
    }
  }

  /**
   * The outermost of {@code folders} (one mount hides what lies beneath it too), each a real folder now: a folder that
   * is not there needs no hiding, and one reached through a link is refused by {@link #hide}.
   */
  static List<Path> outermost(List<Path> folders) {
    List<Path> out = new ArrayList<>();
    for (Path f : folders) {
      if (folders.stream().noneMatch(o -> !o.equals(f) && f.startsWith(o))) {
        out.add(f);
      }
    }
    return out;
  }

  /**
   * On the calling thread (a launcher, before it restricts itself): a mount namespace of its own, and an empty
   * read-only tmpfs over each folder. Fails (the launcher then starts nothing) when a folder cannot be hidden: the
   * ruleset gave its parents rights on the promise that it would be.
   */
  static void hide(List<Path> folders) {
    if (folders.isEmpty()) {
      return;
    }
    int err = privateNamespace();
    if (err != 0) {
      throw new IllegalStateException("cannot hide the node's excluded folders: no mount namespace (errno " + err + ")");
    }
    C c = libc();
    for (Path f : outermost(folders)) {
      if (!Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS)) {
        continue; // gone since the ruleset was built: nothing to hide (its return makes the ruleset stale)
      }
      if (!realFolder(f)) {
        throw new IllegalStateException("cannot hide " + f + ": a link lies on its path");
      }
      if (c.mount(SOURCE, f.toString(), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
          "size=4k,nr_inodes=4,mode=0555") != 0) {
        int e = Native.getLastError();
        if (e != ENOENT) {
          throw new IllegalStateException("cannot hide " + f + " (mount errno " + e + ")");
        }
      }
    }
  }

  private static boolean realFolder(Path f) {
    try {
      return f.toRealPath().equals(f);
    } catch (IOException e) {
      return false;
    }
  }
}
