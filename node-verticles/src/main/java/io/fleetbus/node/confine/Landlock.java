package io.fleetbus.node.confine;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.fleetbus.shared.fault.FaultSwitch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Linux Landlock (kernel ≥ 5.13) through JNA: build a ruleset of file-system rights beneath paths and restrict the
 * calling thread to it (with ABI ≥ 4 TCP bind/connect, with ABI ≥ 6 signals and abstract unix sockets too). A restricted thread, and every process it spawns afterwards, can use the file system only
 * as the ruleset allows; nothing can lift it again. x86_64 system call numbers.
 */
public final class Landlock {
  private static final long SYS_CREATE_RULESET = 444;
  private static final long SYS_ADD_RULE = 445;
  private static final long SYS_RESTRICT_SELF = 446;
  private static final int CREATE_RULESET_VERSION = 1;
  private static final int RULE_PATH_BENEATH = 1;
  private static final int RULE_NET_PORT = 2;
  private static final int PR_SET_NO_NEW_PRIVS = 38;
  private static final int PR_SET_SECCOMP = 22;
  private static final int SECCOMP_MODE_FILTER = 2;
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
  // TCP rights (ABI ≥ 4) and scopes (ABI ≥ 6)
  public static final long NET_BIND_TCP = 1L;
  public static final long NET_CONNECT_TCP = 1L << 1;
  public static final long SCOPE_ABSTRACT_UNIX_SOCKET = 1L;
  public static final long SCOPE_SIGNAL = 1L << 1;
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

  /**
   * The Landlock ABI the kernel offers (0: none, or not Linux on x86_64, or {@link FaultSwitch#NO_LANDLOCK} on: a test
   * flips it with {@link io.fleetbus.shared.fault.FaultSwitches#overrideInTest}).
   */
  public static int abi() {
    if (LIBC == null || !"amd64".equals(System.getProperty("os.arch")) || FaultSwitch.NO_LANDLOCK.on()) {
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

  /** The TCP rights the kernel's ABI can handle (0: none, TCP is then not Landlock's to restrict). */
  public static long handledNet(int abi) {
    return abi >= 4 ? NET_BIND_TCP | NET_CONNECT_TCP : 0;
  }

  /** The scopes the kernel's ABI knows (0: signals and abstract sockets reach outside the domain). */
  public static long scopes(int abi) {
    return abi >= 6 ? SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL : 0;
  }

  /** As below, files only: TCP and signals not handled (what a ruleset of ABI 1-3 amounts to). */
  public static void restrictCurrentThread(int abi, Map<Path, Long> rules) {
    restrictCurrentThread(abi, rules, ProcessGrant.FILES_ONLY.network(), false, null);
  }

  /**
   * Restricts the calling thread (and the processes it starts from now on) to {@code rules}: path → rights beneath
   * it (for a regular file, its file rights only). Paths that do not exist are skipped. Sets no_new_privs first
   * (Landlock requires it: a set-uid program started later keeps the restriction and gains nothing).
   */
  public static void restrictCurrentThread(int abi, Map<Path, Long> rules, ProcessGrant.Network net, boolean scoped,
                                           Memory seccomp) {
    long handled = handled(abi);
    long handledNet = net.open() ? 0 : handledNet(abi);
    long scopes = scoped ? scopes(abi) : 0;
    // struct landlock_ruleset_attr grew with the ABI: fs (8 bytes), net (ABI 4: 16), scoped (ABI 6: 24)
    long size = scopes != 0 ? 24 : handledNet != 0 ? 16 : 8;
    Memory attr = new Memory(24);
    attr.setLong(0, handled);
    attr.setLong(8, handledNet);
    attr.setLong(16, scopes);
    long rulesetFd = LIBC.syscall(SYS_CREATE_RULESET, attr, size, 0);
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
      if (handledNet != 0) {
        addPortRules((int) rulesetFd, net);
      }
      if (LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        throw new IllegalStateException("prctl(PR_SET_NO_NEW_PRIVS) failed (errno " + Native.getLastError() + ")");
      }
      if (LIBC.syscall(SYS_RESTRICT_SELF, (int) rulesetFd, 0) < 0) {
        throw new IllegalStateException("landlock_restrict_self failed (errno " + Native.getLastError() + ")");
      }
      // last, and through this same interface: nothing may be loaded from the node's jar once the thread is restricted
      if (seccomp != null && LIBC.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, Pointer.nativeValue(seccomp), 0, 0) != 0) {
        throw new IllegalStateException("prctl(PR_SET_SECCOMP) failed (errno " + Native.getLastError() + ")");
      }
    } finally {
      LIBC.close((int) rulesetFd);
    }
  }

  /** struct landlock_net_port_attr {u64 allowed_access; u64 port}: one rule per port, connect and bind merged. */
  private static void addPortRules(int rulesetFd, ProcessGrant.Network net) {
    Map<Integer, Long> ports = new java.util.TreeMap<>();
    net.connect().forEach(p -> ports.merge(p, NET_CONNECT_TCP, (a, b) -> a | b));
    net.bind().forEach(p -> ports.merge(p, NET_BIND_TCP, (a, b) -> a | b));
    Memory rule = new Memory(16);
    for (Map.Entry<Integer, Long> e : ports.entrySet()) {
      rule.setLong(0, e.getValue());
      rule.setLong(8, e.getKey());
      if (LIBC.syscall(SYS_ADD_RULE, rulesetFd, RULE_NET_PORT, rule, 0) < 0) {
        throw new IllegalStateException("landlock_add_rule failed for TCP port " + e.getKey() + " (errno "
          + Native.getLastError() + ")");
      }
    }
  }
}
