package io.fleetbus.node.confine;

import static io.fleetbus.node.confine.Landlock.EXECUTE;
import static io.fleetbus.node.confine.Landlock.READ_DIR;
import static io.fleetbus.node.confine.Landlock.READ_FILE;

import io.fleetbus.node.grant.NodeGrant;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The read-only system views everyday programs need, granted to confined processes on sudo and root nodes alike
 * (an unprivileged node starts nothing): process and memory views ({@code /proc}: Landlock's own ptrace rule keeps
 * {@code /proc/<pid>/environ}, {@code mem}, {@code fd} of processes outside the domain unreadable), devices and
 * cgroups under {@code /sys}, the mount table, os-release, git's system config, systemd's runtime state, the logs
 * under {@code /var/log}, the package databases. Nothing here can be written; nothing here holds a credential (the
 * parts of {@code /etc} that may — shadow, ssl/private, sudoers, apt's auth.conf.d, npmrc — are not listed).
 * Program folders are listable, not readable: a readable ELF runs through the dynamic loader (see
 * docs/grant-processes.md).
 */
public final class SystemReads {
  static final List<String> READ = List.of("/proc", "/sys/devices", "/sys/class", "/sys/block", "/sys/bus", "/sys/dev",
    "/sys/fs/cgroup", "/sys/kernel/mm", "/etc/os-release", "/etc/lsb-release", "/etc/debian_version", "/etc/issue",
    "/etc/issue.net", "/etc/hostname", "/etc/timezone", "/etc/machine-id", "/etc/mtab", "/etc/fstab", "/etc/services",
    "/etc/protocols", "/etc/networks", "/etc/gitconfig", "/etc/inputrc", "/etc/mime.types", "/etc/magic",
    "/etc/terminfo", "/etc/ssl/certs", "/etc/ca-certificates.conf", "/etc/alternatives", "/etc/apt/sources.list",
    "/etc/apt/sources.list.d", "/etc/apt/apt.conf.d", "/etc/apt/preferences.d", "/etc/apt/trusted.gpg.d",
    "/etc/apt/keyrings", "/etc/dpkg", "/usr/share", "/var/lib/dpkg", "/var/lib/apt", "/var/cache/apt",
    "/var/log", "/run/log/journal", "/run/systemd", "/run/utmp");
  /** Folders of programs: their names can be listed ({@code ls /usr/bin}, {@code which}), their files not read. */
  static final List<String> LIST = List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin",
    "/dev", "/dev/pts", "/run", "/var", "/var/lib");

  private SystemReads() {
  }

  /**
   * Whether {@code p} lies in a read-only view: run_command may name it as an argument (the kernel grants it read
   * only, so a write through it fails there).
   */
  public static boolean covers(Path p) {
    Path n = p.toAbsolutePath().normalize();
    return Stream.of(READ, LandlockRules.STARTUP, userConfigs()).flatMap(List::stream).map(Path::of).anyMatch(n::startsWith);
  }

  /**
   * The node user's own git configuration ({@code ~/.gitconfig}, {@code ~/.config/git}): git stops ("unknown error
   * occurred while reading the configuration files") when one exists and cannot be read, and the home folder of a root
   * node is a system folder.
   */
  static List<String> userConfigs() {
    String home = System.getProperty("user.home");
    return home == null || home.isBlank() ? List.of() : List.of(home + "/.gitconfig", home + "/.config/git");
  }

  /**
   * Adds the views (and the resource limits' prlimit, which every start executes) to {@code rules}, except those that
   * lie in, or hold, an excluded folder other than the system folders they are carved out of: a private folder (an
   * installed node's data under {@code /var/lib}) or a {@code paths.deny} folder keeps its contents and its names
   * hidden — a listing right on {@code /var} would list every folder beneath it.
   */
  static void addTo(Map<Path, Long> rules, boolean strict, List<Path> excluded) {
    List<Path> keepOut = excluded.stream().filter(e -> !NodeGrant.SYSTEM_PATHS.contains(e.toString())).toList();
    java.util.function.ObjLongConsumer<String> add = (p, rights) -> {
      Path view = Path.of(p);
      if (keepOut.stream().noneMatch(e -> e.startsWith(view) || view.startsWith(e))) {
        rules.merge(view, rights, (a, b) -> a | b);
      }
    };
    READ.forEach(p -> add.accept(p, READ_FILE | READ_DIR));
    userConfigs().forEach(p -> add.accept(p, READ_FILE | READ_DIR));
    LIST.forEach(p -> add.accept(p, READ_DIR));
    ResourceLimits.program().ifPresent(p -> rules.merge(p, READ_FILE | EXECUTE, (a, b) -> a | b));
  }
}
