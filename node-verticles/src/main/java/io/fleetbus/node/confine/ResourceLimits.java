package io.fleetbus.node.confine;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How much a confined process may use. Resource limits belong to a process, not a thread, so they cannot be set on
 * the launcher thread: each start goes through util-linux {@code prlimit} (CPU seconds, file size, and for a node
 * that is not root the number of processes), which sets them on itself and execs the program in place.
 * <p>The process count: {@code RLIMIT_NPROC} counts every task of the user and the kernel ignores it for root, so
 * where a cgroup-v1 {@code pids} hierarchy is writable (a root node) the launcher thread moves itself into a cgroup
 * of its own with {@code pids.max} — everything it starts is born there, and a fork bomb stops at the limit. A node
 * that is not root gets {@code RLIMIT_NPROC} at its user's task count now plus the limit. A root node without a
 * writable pids cgroup has no process limit, and says so.
 */
final class ResourceLimits {
  private static final Logger LOG = LoggerFactory.getLogger(ResourceLimits.class);
  private static final Path PIDS_V1 = Path.of("/sys/fs/cgroup/pids");
  private static final Optional<Path> PRLIMIT = Stream.of("/usr/bin/prlimit", "/bin/prlimit").map(Path::of)
    .filter(Files::isExecutable).findFirst();

  interface C extends Library {
    int getuid();

    int getrlimit(int resource, com.sun.jna.Pointer rlim);

    int setrlimit(int resource, com.sun.jna.Pointer rlim);

    long syscall(long number, Object... args);
  }

  private static final C LIBC = Native.load("c", C.class);

  private static final java.util.concurrent.atomic.AtomicInteger CGROUPS = new java.util.concurrent.atomic.AtomicInteger();
  private final ProcessGrant.Limits limits;
  private final boolean root = LIBC.getuid() == 0;
  private final Optional<Path> pidsParent;
  /** RLIMIT_NPROC for a node that is not root: the user's tasks when the node started, plus the limit. */
  private final long nproc;

  ResourceLimits(ProcessGrant.Limits limits) {
    this.limits = limits;
    this.pidsParent = root && limits.processes() > 0 ? writablePidsCgroup() : Optional.empty();
    pidsParent.ifPresent(ResourceLimits::removeStale);
    this.nproc = !root && limits.processes() > 0 ? userTasks() + limits.processes() : 0;
  }

  /** The prlimit program every start executes (the ruleset lets it execute), when limits apply. */
  static Optional<Path> program() {
    return PRLIMIT;
  }

  /** {@code argv} behind prlimit; {@code cpu}: with the CPU-seconds limit (commands, not jobs or services). */
  List<String> wrap(List<String> argv, boolean cpu) {
    if (PRLIMIT.isEmpty() || !limits.any()) {
      return argv;
    }
    List<String> out = new ArrayList<>(argv.size() + 5);
    out.add(PRLIMIT.get().toString());
    if (nproc > 0) {
      out.add("--nproc=" + nproc);
    }
    // a command's timeout (at most MAX_COMMAND_SECONDS) stops it before a larger CPU limit could
    if (cpu && limits.cpuSeconds() > 0 && limits.cpuSeconds() < MAX_COMMAND_SECONDS) {
      out.add("--cpu=" + limits.cpuSeconds());
    }
    long fsize = limits.fileSizeMb() * 1024L * 1024L;
    if (fsize > 0 && ownFileSizeLimit() > fsize) { // else every child inherits it from the node already
      out.add("--fsize=" + fsize);
    }
    if (out.size() == 1) {
      return argv;
    }
    out.add("--");
    out.addAll(argv);
    return out;
  }

  /** The longest a command may run (run_command's and run_script's timeout_seconds at most). */
  static final int MAX_COMMAND_SECONDS = 600;
  private static final int RLIMIT_FSIZE = 1;

  /**
   * Sets this node process's own file-size limit (soft and hard) to {@code limits.fileSizeMb}, so every process it
   * starts inherits it without a prlimit in front (the node writes no file that large; HotSpot ignores SIGXFSZ, so a
   * write past it fails with EFBIG rather than killing the node). The node calls this once at start.
   */
  static boolean limitOwnFileSize(ProcessGrant.Limits limits) {
    long bytes = limits.fileSizeMb() * 1024L * 1024L;
    if (bytes <= 0 || ownFileSizeLimit() <= bytes) {
      return false;
    }
    com.sun.jna.Memory rlim = new com.sun.jna.Memory(16);
    rlim.setLong(0, bytes);
    rlim.setLong(8, bytes);
    return LIBC.setrlimit(RLIMIT_FSIZE, rlim) == 0;
  }

  /** This process's hard file-size limit (what its children cannot raise), in bytes; unlimited as Long.MAX_VALUE. */
  static long ownFileSizeLimit() {
    com.sun.jna.Memory rlim = new com.sun.jna.Memory(16);
    if (LIBC.getrlimit(RLIMIT_FSIZE, rlim) != 0) {
      return Long.MAX_VALUE;
    }
    long hard = rlim.getLong(8);
    return hard < 0 ? Long.MAX_VALUE : hard; // RLIM_INFINITY is all ones
  }

  /**
   * On the launcher thread, before Landlock (which would refuse the write): moves the thread into a pids cgroup of
   * its own ({@code <pids hierarchy>/<node's cgroup>/fleetbus-<pid>-<name>}), when this node has one.
   */
  void enterPidsCgroup(String name) {
    if (pidsParent.isEmpty()) {
      return;
    }
    Path dir = pidsParent.get().resolve("fleetbus-" + ProcessHandle.current().pid() + "-" + name + "-"
      + CGROUPS.incrementAndGet());
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("pids.max"), Integer.toString(limits.processes()));
      Files.writeString(dir.resolve("tasks"), Long.toString(LIBC.syscall(186))); // gettid
    } catch (IOException e) {
      LOG.warn("confined processes of launcher {} start without a process limit [reason: cannot use the pids cgroup"
        + " {}: {}]", name, dir, e.getMessage());
    }
  }

  /** What the node reports: each limit and what enforces it. */
  JsonObject toJson() {
    String processes = limits.processes() == 0 ? "none"
      : pidsParent.isPresent() ? "cgroup pids.max (per launcher)"
      : nproc > 0 && PRLIMIT.isPresent() ? "RLIMIT_NPROC (the node user's tasks: " + (nproc - limits.processes())
        + " at start + the limit)"
      : "not enforced (" + (root ? "root ignores RLIMIT_NPROC and no pids cgroup is writable" : "no prlimit") + ")";
    return new JsonObject().put("processes", limits.processes()).put("processesBy", processes)
      .put("cpuSeconds", limits.cpuSeconds()).put("cpuSecondsBy", limits.cpuSeconds() == 0 ? "none"
        : limits.cpuSeconds() >= MAX_COMMAND_SECONDS ? "the command timeout (at most " + MAX_COMMAND_SECONDS + " s)"
        : PRLIMIT.isPresent() ? "prlimit" : "not enforced (no prlimit program)")
      .put("fileSizeMb", limits.fileSizeMb()).put("fileSizeBy", limits.fileSizeMb() == 0 ? "none"
        : ownFileSizeLimit() <= limits.fileSizeMb() * 1024L * 1024L ? "the node's own RLIMIT_FSIZE, inherited"
        : PRLIMIT.isPresent() ? "prlimit" : "not enforced (no prlimit program)");
  }

  private static Optional<Path> writablePidsCgroup() {
    try {
      if (!Files.isDirectory(PIDS_V1) || !Files.exists(PIDS_V1.resolve("tasks"))) {
        return Optional.empty();
      }
      String own = Files.readAllLines(Path.of("/proc/self/cgroup")).stream()
        .filter(l -> l.matches("\\d+:pids:.*")).map(l -> l.substring(l.indexOf(":pids:") + 6)).findFirst().orElse("/");
      Path parent = PIDS_V1.resolve(own.substring(1));
      return Files.isWritable(parent) ? Optional.of(parent) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Removes the empty cgroups node processes that are gone left behind ({@code fleetbus-<pid>-…}). */
  private static void removeStale(Path parent) {
    try (Stream<Path> dirs = Files.list(parent)) {
      for (Path d : dirs.filter(d -> d.getFileName().toString().startsWith("fleetbus-")).toList()) {
        String pid = d.getFileName().toString().split("-")[1];
        if (pid.chars().allMatch(Character::isDigit) && ProcessHandle.of(Long.parseLong(pid)).isEmpty()) {
          Files.deleteIfExists(d); // rmdir: refused while a process is still in it
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("stale pids cgroups not removed [reason: {}]", e.getMessage());
    }
  }

  /** The tasks (threads included) of this process's user now: what RLIMIT_NPROC counts. */
  private static long userTasks() {
    String uid = Integer.toString(LIBC.getuid());
    long n = 0;
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        if (!p.getFileName().toString().chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          List<String> status = Files.readAllLines(p.resolve("status"));
          boolean mine = status.stream().anyMatch(l -> l.startsWith("Uid:") && l.split("\\s+")[1].equals(uid));
          if (mine) {
            n += status.stream().filter(l -> l.startsWith("Threads:")).mapToLong(l -> Long.parseLong(l.split("\\s+")[1]))
              .sum();
          }
        } catch (IOException | RuntimeException e) {
          // gone meanwhile
        }
      }
    } catch (IOException e) {
      return 0;
    }
    return n;
  }
}
