package io.fleetbus.node.tools.osprocess;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Processes manage_process never touches: pid 1 and kernel threads, init and systemd, sshd (the way
 * back in), the node agent itself and its parent, Windows' critical processes, and configured names.
 */
public final class ProcessGuard {
  static final Set<String> BUILT_IN = Set.of("init", "systemd", "sshd", "launchd", "kthreadd", "lsass.exe",
    "winlogon.exe", "csrss.exe", "wininit.exe", "services.exe", "smss.exe", "system", "dbus-daemon");

  private final Set<String> names;
  private final long self;
  private final long parent;

  public ProcessGuard(List<String> configured) {
    this(configured, ProcessHandle.current().pid(), ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L));
  }

  ProcessGuard(List<String> configured, long self, long parent) {
    this.names = Stream.concat(BUILT_IN.stream(), configured.stream()).map(n -> n.toLowerCase(Locale.ROOT))
      .collect(Collectors.toUnmodifiableSet());
    this.self = self;
    this.parent = parent;
  }

  /** Why this process is off limits, or empty when it may be managed. */
  public Optional<String> refusal(long pid, String name) {
    String n = name == null ? "" : name.toLowerCase(Locale.ROOT);
    if (pid <= 2) {
      return Optional.of("pid " + pid + " belongs to the init system or the kernel");
    }
    if (pid == self) {
      return Optional.of("it is this node agent");
    }
    if (pid == parent) {
      return Optional.of("it is the node agent's parent process");
    }
    if (names.contains(n) || n.startsWith("systemd-")) {
      return Optional.of("'" + name + "' is a protected process name on this node");
    }
    return Optional.empty();
  }
}
