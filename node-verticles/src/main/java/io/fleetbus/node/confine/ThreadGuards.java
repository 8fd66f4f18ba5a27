package io.fleetbus.node.confine;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;

/**
 * What a launcher thread takes from itself, besides Landlock, before it starts anything (both are per thread and
 * inherited by every process it starts):
 * <ul>
 *   <li>{@link #dropCapabilities()}: the capability bounding set emptied — a node that runs as root on the sudo tier
 *       then starts programs that are root by uid only (no module loading, no raw I/O, no reboot, no /proc/kcore);</li>
 *   <li>{@link #filter}: a seccomp filter that answers EPERM to memfd_create and execveat (code written to an
 *       anonymous file and run from there: Landlock does not see such a file) and to every non-x86_64 system call
 *       (the 32-bit and x32 entry points, where the numbers differ).</li>
 * </ul>
 */
final class ThreadGuards {
  private static final int PR_CAPBSET_DROP = 24;
  private static final int PR_CAP_AMBIENT = 47;
  private static final int EPERM = 1;
  private static final int EINVAL = 22;
  private static final int PR_CAP_AMBIENT_CLEAR_ALL = 4;
  private static final int AUDIT_ARCH_X86_64 = 0xC000003E;
  private static final int NR_MEMFD_CREATE = 319;
  private static final int NR_EXECVEAT = 322;
  private static final int NR_PRLIMIT64 = 302;
  private static final int NR_SCHED_SETAFFINITY = 203;
  private static final int NR_SCHED_SETSCHEDULER = 144;
  private static final int NR_SCHED_SETPARAM = 142;
  private static final int NR_SCHED_SETATTR = 314;
  private static final int NR_SETPRIORITY = 141;
  private static final int NR_IOPRIO_SET = 251;
  private static final int NR_SOCKET = 41;
  private static final int AF_UNIX = 1;
  // struct seccomp_data: nr, arch, instruction pointer, args[6] (u64, the low half first on x86_64)
  private static final int OFF_NR = 0;
  private static final int OFF_ARCH = 4;
  private static final int OFF_ARG0 = 16;
  private static final int X32_BIT = 0x40000000;
  private static final int RET_ALLOW = 0x7fff0000;
  private static final int RET_EPERM = 0x00050000 | 1;

  interface C extends Library {
    int prctl(int option, long arg2, long arg3, long arg4, long arg5);
  }

  private static final C LIBC = Native.load("c", C.class);

  private ThreadGuards() {
  }

  /** The capabilities that step around Landlock or read kernel memory (dropped on every tier that confines). */
  static final int[] ESCAPES = {2, 16, 17, 19, 21, 32, 33, 34, 38, 39, 40};

  /**
   * Drops capabilities from the calling thread's bounding set (and clears its ambient set): {@code all}, or the
   * {@link #ESCAPES}. A node that is not root has none to lose (no error then).
   */
  static void dropCapabilities(boolean all) {
    LIBC.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    // up to the kernel's last capability (EINVAL past it); /proc/sys/kernel/cap_last_cap reads short from Java
    int[] caps = all ? java.util.stream.IntStream.range(0, 64).toArray() : ESCAPES;
    for (int cap : caps) {
      if (LIBC.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
        if (cap == caps[0] && Native.getLastError() == EPERM) {
          return; // no CAP_SETPCAP: not root, so the started programs have no capabilities to lose
        }
        if (Native.getLastError() == EINVAL) {
          return; // past the kernel's last capability
        }
      }
    }
  }


  /**
   * The seccomp filter (a {@code struct sock_fprog}), built before the thread restricts itself (after Landlock no class
   * can be loaded from the node's jar) and installed by {@link Landlock#restrictCurrentThread} last: EPERM for
   * memfd_create, execveat, the 32-bit and x32 entry points, and for the calls that act on another process by pid
   * without a ptrace check that Landlock could scope — prlimit64 (a child could set the node's CPU limit to 1 s and
   * kill it), the sched_set* family, setpriority and ioprio_set — unless they name the caller itself (pid 0).
   */
  /**
   * The filter: {@code guard} the calls above; {@code unixSockets} false also refuses socket(AF_UNIX, …) (a pathname
   * socket of a daemon that trusts uid 0; socketpair stays: it reaches nobody).
   */
  static Memory filter(boolean guard, boolean unixSockets) {
    Bpf b = new Bpf();
    b.load(OFF_ARCH).jumpUnless(AUDIT_ARCH_X86_64, "deny");
    b.load(OFF_NR).jumpIfAtLeast(X32_BIT, "deny");
    if (!unixSockets) {
      b.jumpIf(NR_SOCKET, "socket-domain");
    }
    if (guard) {
      b.jumpIf(NR_MEMFD_CREATE, "deny").jumpIf(NR_EXECVEAT, "deny");
      for (int nr : new int[] {NR_PRLIMIT64, NR_SCHED_SETAFFINITY, NR_SCHED_SETSCHEDULER, NR_SCHED_SETPARAM,
        NR_SCHED_SETATTR}) {
        b.jumpIf(nr, "self-arg0");
      }
      b.jumpIf(NR_SETPRIORITY, "prio-process").jumpIf(NR_IOPRIO_SET, "ioprio-process");
    }
    b.ret(RET_ALLOW);
    b.label("socket-domain").load(OFF_ARG0).jumpIf(AF_UNIX, "deny").ret(RET_ALLOW);
    b.label("prio-process").load(OFF_ARG0).jumpUnless(0, "deny").jump("self-arg1"); // PRIO_PROCESS
    b.label("ioprio-process").load(OFF_ARG0).jumpUnless(1, "deny");                  // IOPRIO_WHO_PROCESS
    b.label("self-arg1").load(OFF_ARG0 + 8).jumpUnless(0, "deny").ret(RET_ALLOW);
    b.label("self-arg0").load(OFF_ARG0).jumpUnless(0, "deny").ret(RET_ALLOW);
    b.label("deny").ret(RET_EPERM);
    return b.program();
  }

  /** A classic-BPF program with forward jumps to labels (struct sock_filter: u16 code, u8 jt, u8 jf, u32 k). */
  private static final class Bpf {
    private final java.util.List<Object[]> code = new java.util.ArrayList<>();
    private final java.util.Map<String, Integer> labels = new java.util.HashMap<>();

    Bpf load(int offset) {
      code.add(new Object[] {0x20, offset, null, null});
      return this;
    }

    Bpf jumpIf(int k, String to) {
      code.add(new Object[] {0x15, k, to, null});
      return this;
    }

    Bpf jumpUnless(int k, String to) {
      code.add(new Object[] {0x15, k, null, to});
      return this;
    }

    Bpf jumpIfAtLeast(int k, String to) {
      code.add(new Object[] {0x35, k, to, null});
      return this;
    }

    Bpf jump(String to) {
      code.add(new Object[] {0x05, 0, to, null});
      return this;
    }

    Bpf ret(int k) {
      code.add(new Object[] {0x06, k, null, null});
      return this;
    }

    Bpf label(String name) {
      labels.put(name, code.size());
      return this;
    }

    /** struct sock_fprog {u16 len; struct sock_filter *filter} (the filter kept alive with it). */
    Memory program() {
      Memory keep = new Memory(8L * code.size());
      for (int i = 0; i < code.size(); i++) {
        Object[] ins = code.get(i);
        int op = (Integer) ins[0];
        int k = (Integer) ins[1];
        if (op == 0x05) { // BPF_JA: k is the distance
          k = labels.get((String) ins[2]) - i - 1;
        }
        keep.setShort(8L * i, (short) op);
        keep.setByte(8L * i + 2, (byte) (op == 0x05 || ins[2] == null ? 0 : labels.get((String) ins[2]) - i - 1));
        keep.setByte(8L * i + 3, (byte) (ins[3] == null ? 0 : labels.get((String) ins[3]) - i - 1));
        keep.setInt(8L * i + 4, k);
      }
      Memory fprog = new Memory(16) {
        final Memory filter = keep; // held as long as the program is
      };
      fprog.setShort(0, (short) code.size());
      fprog.setPointer(8, keep);
      return fprog;
    }
  }
}
