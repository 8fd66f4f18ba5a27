package io.fleetbus.node.confine;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Linux Landlock (kernel ≥ 5.13) through JNA: build a ruleset of file-system rights beneath paths and restrict the
 * calling thread to it. A restricted thread, and every process it spawns afterwards, can use the file system only
 * as the ruleset allows; nothing can lift it again. x86_64 system call numbers.
 */
public final class Landlock {
  private static final long SYS_CREATE_RULESET = 444;
  private static final long SYS_ADD_RULE = 445;
  private static final long SYS_RESTRICT_SELF = 446;
  private static final int CREATE_RULESET_VERSION = 1;
  private static final int RULE_PATH_BENEATH = 1;
  private static final int PR_SET_NO_NEW_PRIVS = 38;
  private static final int O_PATH = 0x200000;
  private static final int O_CLOEXEC = 0x80000;

  // file-system rights (uapi/linux/landlock.h)
  public static final long EXECUTE = 1L;
  public static final long WRITE_FILE = 1L << 1;
  public static final long READ_FILE = 1L << 2;
  public static final long READ_DIR = 1L << 3;
  public static final long REMOVE_DIR = 1L << 4;
  public static final long REMOVE_FILE = 1L << 5;
  public static final long MAKE_CHAR = 1L << 6;
  public static final long MAKE_DIR = 1L << 7;
  public static final long MAKE_REG = 1L << 8;
  public static final long MAKE_SOCK = 1L << 9;
  public static final long MAKE_FIFO = 1L << 10;
  public static final long MAKE_BLOCK = 1L << 11;
  public static final long MAKE_SYM = 1L << 12;
  public static final long REFER = 1L << 13;
  public static final long TRUNCATE = 1L << 14;
  public static final long IOCTL_DEV = 1L << 15;
  /** The rights a rule on a regular file (not a folder) may carry. */
  public static final long FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV;

  interface C extends Library {
    long syscall(long number, Object... args);

    int prctl(int option, long arg2, long arg3, long arg4, long arg5);

    int open(String path, int flags);

    int close(int fd);
  }

  private static final C LIBC = load();

  private Landlock() {
  }

  private static C load() {
    try {
      return Native.load("c", C.class);
    } catch (Throwable e) {
      return null;
    }
  }

  /** The Landlock ABI the kernel offers (0: none, or not Linux on x86_64). */
  public static int abi() {
    if (LIBC == null || !"amd64".equals(System.getProperty("os.arch")) || Boolean.getBoolean("fleetbus.fault.noLandlock")) {
      return 0;
    }
    long v = LIBC.syscall(SYS_CREATE_RULESET, Pointer.NULL, 0L, CREATE_RULESET_VERSION);
    return v < 0 ? 0 : (int) v;
  }

  /** Every right the kernel's ABI knows (what a ruleset handles: anything not granted below is denied). */
  public static long handled(int abi) {
    long all = (1L << 13) - 1;
    if (abi >= 2) {
      all |= REFER;
    }
    if (abi >= 3) {
      all |= TRUNCATE;
    }
    if (abi >= 5) {
      all |= IOCTL_DEV;
    }
    return all;
  }

  /**
   * Restricts the calling thread (and the processes it starts from now on) to {@code rules}: path → rights beneath
   * it (for a regular file, its file rights only). Paths that do not exist are skipped. Sets no_new_privs first
   * (Landlock requires it: a set-uid program started later keeps the restriction and gains nothing).
   */
  public static void restrictCurrentThread(int abi, Map<Path, Long> rules) {
    long handled = handled(abi);
    Memory attr = new Memory(8);
    attr.setLong(0, handled);
    long rulesetFd = LIBC.syscall(SYS_CREATE_RULESET, attr, 8L, 0);
    if (rulesetFd < 0) {
      throw new IllegalStateException("landlock_create_ruleset failed (errno " + Native.getLastError() + ")");
    }
    try {
      Memory beneath = new Memory(12);
      for (Map.Entry<Path, Long> rule : rules.entrySet()) {
        Path path = rule.getKey();
        if (!Files.exists(path)) {
          continue;
        }
        long rights = rule.getValue() & handled;
        if (!Files.isDirectory(path)) {
          rights &= FILE_RIGHTS;
        }
        if (rights == 0) {
          continue;
        }
        int fd = LIBC.open(path.toString(), O_PATH | O_CLOEXEC);
        if (fd < 0) {
          continue;
        }
        try {
          beneath.setLong(0, rights);
          beneath.setInt(8, fd);
          if (LIBC.syscall(SYS_ADD_RULE, (int) rulesetFd, RULE_PATH_BENEATH, beneath, 0) < 0) {
            throw new IllegalStateException("landlock_add_rule failed for " + path + " (errno " + Native.getLastError() + ")");
          }
        } finally {
          LIBC.close(fd);
        }
      }
      if (LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        throw new IllegalStateException("prctl(PR_SET_NO_NEW_PRIVS) failed (errno " + Native.getLastError() + ")");
      }
      if (LIBC.syscall(SYS_RESTRICT_SELF, (int) rulesetFd, 0) < 0) {
        throw new IllegalStateException("landlock_restrict_self failed (errno " + Native.getLastError() + ")");
      }
    } finally {
      LIBC.close((int) rulesetFd);
    }
  }
}
