package io.fleetbus.node.tools.osprocess;

import com.sun.jna.Library;
import com.sun.jna.Native;

/** Stop and continue signals through libc's kill(2): Java's ProcessHandle has no suspend. */
final class Signals {
  private interface LibC extends Library {
    int kill(int pid, int signal);
  }

  private static final boolean MAC = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("mac");
  static final int SIGSTOP = MAC ? 17 : 19;
  static final int SIGCONT = MAC ? 19 : 18;

  private Signals() {
  }

  /** True when the signal was delivered. */
  static boolean send(long pid, int signal) {
    return Holder.LIBC.kill((int) pid, signal) == 0;
  }

  private static final class Holder {
    static final LibC LIBC = Native.load("c", LibC.class);
  }
}
