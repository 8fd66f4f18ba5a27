package io.fleetbus.node.confine;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * What a confined process may do besides files: reach the network, signal or connect to processes outside its
 * Landlock domain, how much it may use (processes, CPU seconds, file size), and the execution guards. Read from the
 * node's conf ({@code commands.network}, {@code commands.limits}); each part can be switched off in tests only
 * ({@link #without}), to show what it stops.
 *
 * @param network          TCP the kernel lets through (Landlock ABI ≥ 4; UDP, ICMP and netlink are not Landlock's)
 * @param scoped           no signals to, and no abstract unix sockets of, processes outside the domain (ABI ≥ 6)
 * @param limits           per-process resource limits (and a pids cgroup where one is writable)
 * @param execGuard        a seccomp filter: memfd_create, execveat and non-x86_64 system calls answer EPERM
 * @param capabilities     what a node running as root takes from its confined processes
 * @param unixSockets      {@code commands.unixSockets}: false refuses socket(AF_UNIX) (seccomp), so a node that runs as
 *                         root keeps its confined processes from daemons that trust uid 0 on a socket (docker, D-Bus,
 *                         systemd): Landlock ABI 7 does not restrict connecting to a pathname socket
 */
public record ProcessGrant(Network network, boolean scoped, Limits limits, boolean execGuard, Capabilities capabilities,
                           boolean unixSockets) {

  /** As below, unix sockets allowed (the default). */
  public ProcessGrant(Network network, boolean scoped, Limits limits, boolean execGuard, Capabilities capabilities) {
    this(network, scoped, limits, execGuard, capabilities, true);
  }

  /**
   * What a node that runs as root takes from its confined processes: on the sudo tier every capability (root by uid
   * only); on the root tier those that step around Landlock or read the kernel's memory (module loading, raw I/O and
   * /proc/kcore, BPF and perf, open_by_handle_at, ptrace, sys_admin, MAC, checkpoint/restore); KEEP: nothing (tests).
   */
  public enum Capabilities { KEEP, ESCAPES, ALL }

  /** TCP ports: {@code open} (not handled at all), else connect/bind only to the listed ports. */
  public record Network(boolean open, List<Integer> connect, List<Integer> bind) {
    /** The default: name resolution over TCP, HTTP and HTTPS out (package indexes, `npm view`), nothing listens. */
    static final Network DEFAULT = new Network(false, List.of(53, 80, 443), List.of());
    static final Network NONE = new Network(false, List.of(), List.of());
    static final Network OPEN = new Network(true, List.of(), List.of());

    /** {@code commands.network}: true | false | [ports to connect to] | {connect: [..], bind: [..]}. */
    static Network fromConf(Object v) {
      if (v == null) {
        return DEFAULT;
      }
      if (v instanceof Boolean b) {
        return b ? OPEN : NONE;
      }
      if (v instanceof JsonArray ports) {
        return new Network(false, ports(ports), List.of());
      }
      if (v instanceof JsonObject o) {
        return new Network(false, ports(o.getJsonArray("connect", new JsonArray())), ports(o.getJsonArray("bind",
          new JsonArray())));
      }
      throw new IllegalArgumentException("commands.network must be true, false, a list of TCP ports to connect to,"
        + " or {\"connect\": [ports], \"bind\": [ports]}");
    }

    private static List<Integer> ports(JsonArray a) {
      return a.stream().map(p -> {
        if (!(p instanceof Integer n) || n < 0 || n > 65535) {
          throw new IllegalArgumentException("commands.network: '" + p + "' is not a TCP port (0-65535)");
        }
        return n;
      }).toList();
    }

    JsonObject toJson() {
      return open ? new JsonObject().put("tcp", "any") : new JsonObject().put("connect", new JsonArray(connect))
        .put("bind", new JsonArray(bind));
    }
  }

  /**
   * {@code commands.limits}: {@code processes} (tasks at once, per launcher; 0: no limit), {@code cpuSeconds} (per
   * process, commands only: jobs and managed processes run long on purpose), {@code fileSizeMb} (the largest file a
   * process may write).
   */
  public record Limits(int processes, int cpuSeconds, int fileSizeMb) {
    /** A sudo node's: a fork bomb stops at 256 tasks, a file at 1 GiB, a command at its timeout. */
    static final Limits DEFAULT = new Limits(256, 600, 1024);
    /** A root node's: more room for builds and backups; no file-size limit (images, archives). */
    static final Limits ROOT_DEFAULT = new Limits(1024, 600, 0);
    static final Limits NONE = new Limits(0, 0, 0);

    static Limits fromConf(JsonObject o, boolean sudo) {
      Limits d = sudo ? DEFAULT : ROOT_DEFAULT;
      if (o == null) {
        return d;
      }
      return new Limits(nonNegative(o, "processes", d.processes), nonNegative(o, "cpuSeconds", d.cpuSeconds),
        nonNegative(o, "fileSizeMb", d.fileSizeMb));
    }

    private static int nonNegative(JsonObject o, String key, int fallback) {
      Object v = o.getValue(key, fallback);
      if (!(v instanceof Integer n) || n < 0) {
        throw new IllegalArgumentException("commands.limits." + key + " must be a whole number ≥ 0 (0: no limit)");
      }
      return n;
    }

    boolean any() {
      return processes > 0 || cpuSeconds > 0 || fileSizeMb > 0;
    }
  }

  /** The grant of a node's conf ({@code confinement} with {@code network} and {@code limits} copied from commands). */
  static ProcessGrant fromConf(JsonObject confinement, boolean sudo) {
    return new ProcessGrant(Network.fromConf(confinement.getValue("network")), true,
      Limits.fromConf(confinement.getJsonObject("limits"), sudo), true, sudo ? Capabilities.ALL : Capabilities.ESCAPES,
      unixSockets(confinement.getValue("unixSockets", true)));
  }

  private static boolean unixSockets(Object v) {
    if (!(v instanceof Boolean b)) {
      throw new IllegalArgumentException("commands.unixSockets must be true or false");
    }
    return b;
  }

  /** The grant that handles nothing beyond files (what confinement was before network, scope and limits). */
  static final ProcessGrant FILES_ONLY = new ProcessGrant(Network.OPEN, false, Limits.NONE, false,
    Capabilities.KEEP);

  /** The parts a test switches off to show what each stops. */
  enum Part { NETWORK, SCOPE, LIMITS, EXEC_GUARD, CAPABILITIES }

  /** This grant with {@code part} switched off (tests only). */
  ProcessGrant without(Part part) {
    return switch (part) {
      case NETWORK -> new ProcessGrant(Network.OPEN, scoped, limits, execGuard, capabilities, unixSockets);
      case SCOPE -> new ProcessGrant(network, false, limits, execGuard, capabilities, unixSockets);
      case LIMITS -> new ProcessGrant(network, scoped, Limits.NONE, execGuard, capabilities, unixSockets);
      case EXEC_GUARD -> new ProcessGrant(network, scoped, limits, false, capabilities, unixSockets);
      case CAPABILITIES -> new ProcessGrant(network, scoped, limits, execGuard, Capabilities.KEEP, unixSockets);
    };
  }
}
